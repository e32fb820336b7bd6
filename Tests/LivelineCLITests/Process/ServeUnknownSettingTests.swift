import Foundation
import LivelineTestSupport
import Testing

/// `liveline serve` names a `LIVELINE_*` variable no setting reads, with the one it most likely
/// meant, and starts anyway (docs/configuration.md).
@Suite struct ServeUnknownSettingTests {
    @Test func aMisspeltSettingIsNamedWithTheOneItMeantAndTheServerStillStarts() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-unknown-setting-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }

        let server = try ServeProcess(
            data: data, environment: ["LIVELINE_LOG_LEVL": "debug", "LIVELINE_TEST_ANYTHING": "1", "LIVELINE_MAX_BODY_BYTES": "65536"])
        defer { server.kill(SIGTERM) }
        #expect(
            server.startText.contains(
                "liveline serve: LIVELINE_LOG_LEVL is not a setting of this build (did you mean LIVELINE_LOG_LEVEL?); ignored"),
            "\(server.startText)")
        #expect(!server.startText.contains("LIVELINE_TEST_ANYTHING"), "the tests' own variables are not settings")
        #expect(!server.startText.contains("LIVELINE_MAX_BODY_BYTES is not"), "a real setting is not named")
    }
}
