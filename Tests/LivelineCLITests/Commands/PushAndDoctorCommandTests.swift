import Foundation
import LivelineSandbox
import Testing

/// `liveline push` and `liveline doctor` against an APNs sandbox over HTTP/2 + TLS, configured
/// through the `LIVELINE_APNS_*` variables as the README shows.
@Suite struct PushAndDoctorCommandTests {
    static func withSandbox(_ body: (APNSSandbox, [String: String]) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cli-apns-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder))
        defer { sandbox.stop() }
        try body(
            sandbox,
            [
                "LIVELINE_APNS_KEY_PATH": sandbox.keyFile.path, "LIVELINE_APNS_KEY_ID": sandbox.keyID,
                "LIVELINE_APNS_TEAM_ID": sandbox.teamID, "LIVELINE_APNS_HOST": "127.0.0.1",
                "LIVELINE_APNS_PORT": String(sandbox.devicePort), "LIVELINE_APNS_CA_FILE": sandbox.certificateFile.path,
            ])
    }

    static var examples: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/payloads")
    }

    @Test func doctorPassesEveryCheckAgainstTheSandbox() throws {
        try Self.withSandbox { _, environment in
            let output = CapturedOutput()
            output.environment = environment
            #expect(output.run(["doctor"]) == 0, "\(output.standardOutput)")
            #expect(output.standardOutput.contains("BadDeviceToken"))
            #expect(!output.standardOutput.contains("✘"))
            #expect(output.standardOutput.split(separator: "\n").count == 7)
        }
    }

    @Test func doctorNamesAWrongTeamAndExitsNonZero() throws {
        try Self.withSandbox { _, environment in
            let output = CapturedOutput()
            output.environment = environment.merging(["LIVELINE_APNS_TEAM_ID": "WRONGTEAM1"]) { $1 }
            #expect(output.run(["doctor"]) == 1)
            #expect(output.standardOutput.contains("✘ APNs refused the provider token: 403 InvalidProviderToken"))
            let missing = CapturedOutput()
            #expect(missing.run(["doctor"]) == 1)
            #expect(missing.standardOutput.contains("no APNs key configured"))
        }
    }

    @Test func pushSendsACheckedPayloadAndPrintsTheAnswer() throws {
        try Self.withSandbox { sandbox, environment in
            let token = String(repeating: "ab", count: 32)
            sandbox.registerDevice(token: token)
            let output = CapturedOutput()
            output.environment = environment
            let file = Self.examples.appendingPathComponent("trip-start.json").path
            #expect(
                output.run(["push", "--token", token, "--payload", file, "--priority", "5"]) == 0, "\(output.standardOutput) \(output.standardError)")
            #expect(output.standardOutput.contains("status:   200"))
            let accepted = try #require(sandbox.accepted(token: token).first)
            #expect(output.standardOutput.contains("apns-id:  \(accepted.apnsID)"))
            #expect(accepted.priority == 5)
            #expect(accepted.topic == "dev.liveline.demo.push-type.liveactivity")
        }
    }

    @Test func pushRefusesWhatAPhoneWouldDropAndReportsAPNSErrors() throws {
        try Self.withSandbox { sandbox, environment in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(#"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"open":"x"}}}"#.utf8).write(to: file)
            let refused = CapturedOutput()
            refused.environment = environment
            #expect(refused.run(["push", "--token", "abab", "--payload", file.path, "--attributes-type", "ShoppingActivityAttributes"]) == 1)
            #expect(refused.standardError.contains("not sent"))
            #expect(sandbox.acceptedCount == 0)
            let unknown = CapturedOutput()
            unknown.environment = environment
            let example = Self.examples.appendingPathComponent("trip-start.json").path
            #expect(unknown.run(["push", "--token", String(repeating: "cd", count: 32), "--payload", example]) == 1)
            #expect(unknown.standardOutput.contains("400 BadDeviceToken"))
            #expect(unknown.standardOutput.contains("token dead"))
            let usage = CapturedOutput()
            usage.environment = environment
            #expect(usage.run(["push", "--payload", example]) == 2)
            #expect(usage.standardError.contains("--token HEX or --channel ID"))
        }
    }
}
