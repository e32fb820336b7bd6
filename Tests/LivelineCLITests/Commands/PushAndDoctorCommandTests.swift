import Foundation
import LivelineSandbox
import Testing

/// `liveline push` and `liveline doctor` against an APNs sandbox (or a development and a
/// production one) over HTTP/2 + TLS, configured through the `LIVELINE_APNS_*` variables as the
/// docs/operations.md shows ("Sending by hand and checking the setup").
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

    @Test func doctorSaysTheOtherEnvironmentIsNotCheckedAgainstOneServer() throws {
        try Self.withSandbox { _, environment in
            let output = CapturedOutput()
            output.environment = environment
            #expect(output.run(["doctor"]) == 0, "\(output.standardOutput)")
            #expect(!output.standardOutput.contains("production"))
            let note = try #require(output.standardError.split(separator: "\n").first { $0.contains("not checked") }, "\(output.standardError)")
            #expect(note.contains("production: not checked: LIVELINE_APNS_HOST") && note.contains("LIVELINE_APNS_PRODUCTION_HOST"))
        }
    }

    /// The variables of a server pushing to both sandboxes of `pair` with their one key:
    /// development the default environment, production the other.
    static func environment(of pair: SandboxPair) -> [String: String] {
        [
            "LIVELINE_APNS_KEY_PATH": pair.development.keyFile.path, "LIVELINE_APNS_KEY_ID": pair.development.keyID,
            "LIVELINE_APNS_TEAM_ID": pair.development.teamID, "LIVELINE_APNS_HOST": "127.0.0.1",
            "LIVELINE_APNS_PORT": String(pair.development.devicePort), "LIVELINE_APNS_PRODUCTION_HOST": "127.0.0.1",
            "LIVELINE_APNS_PRODUCTION_PORT": String(pair.production.devicePort), "LIVELINE_APNS_CA_FILE": pair.development.certificateFile.path,
        ]
    }

    @Test func doctorChecksBothEnvironmentsAndNamesTheOneThatFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cli-apns-both-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let pair = try APNSSandbox.startBoth(SandboxConfiguration(folder: folder))
        defer { pair.stop() }
        let (development, production) = (pair.development.devicePort, pair.production.devicePort)

        let output = CapturedOutput()
        output.environment = Self.environment(of: pair)
        #expect(output.run(["doctor"]) == 0, "\(output.standardOutput)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(!output.standardOutput.contains("✘") && lines.count == 9, "\(output.standardOutput)")
        // The common checks once, then each environment's connection and answer through its own port.
        let order = ["✔ development: connected", "✔ development: APNs accepted", "✔ production: connected", "✔ production: APNs accepted"]
        #expect(zip(lines.suffix(4), order).allSatisfy { $0.hasPrefix($1) }, "\(lines)")
        #expect(lines.contains("✔ development: connected to 127.0.0.1:\(development) over HTTP/2 with TLS"))
        #expect(lines.contains("✔ production: connected to 127.0.0.1:\(production) over HTTP/2 with TLS"))
        #expect(lines.filter { $0.contains("APNs accepted the provider token and topic") && $0.contains("400 BadDeviceToken") }.count == 2)
        #expect(!output.standardError.contains("not checked"))

        pair.production.stop()
        let failing = CapturedOutput()
        failing.environment = Self.environment(of: pair)
        #expect(failing.run(["doctor"]) == 1, "\(failing.standardOutput)")
        let failed = failing.standardOutput.split(separator: "\n").filter { $0.hasPrefix("✘") }
        #expect(failed.count == 1 && failed[0].hasPrefix("✘ production: connecting to 127.0.0.1:\(production): "), "\(failing.standardOutput)")
        #expect(failing.standardOutput.contains("✔ development: APNs accepted the provider token and topic"))
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
