import Foundation
import Testing
@testable import LivelineSandbox

/// An independent APNs client from PyPI (aioapns, in the test virtualenv `.venv`) against the
/// sandbox: JWT auth, its own HTTP/2 stack (h2) and TLS without ALPN.
@Suite struct AioapnsPeerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func aioapnsGetsAThousand200sAndApplesReasons() async throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("\(python.path) is missing: run scripts/test-venv.sh (creates .venv with aioapns)")
            return
        }
        // The real clock: aioapns puts time.time() in its tokens.
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: SandboxHarness.folder))
        defer { sandbox.stop() }
        let token = String(repeating: "7c", count: 32)
        let gone = String(repeating: "3d", count: 32)
        sandbox.registerDevice(token: token)
        sandbox.registerDevice(token: gone)
        sandbox.markUnregistered(token: gone, at: Date(timeIntervalSince1970: 1_767_000_000.25))

        let output = try await PeerProcess.run(
            python.path,
            [
                Self.root.appendingPathComponent("Tests/LivelineSandboxTests/Peers/aioapns_peer.py").path,
                "--port", "\(sandbox.devicePort)", "--ca", sandbox.certificateFile.path, "--key", sandbox.keyFile.path,
                "--key-id", sandbox.keyID, "--team-id", sandbox.teamID, "--bundle-id", sandbox.bundleID,
                "--token", token, "--unregistered-token", gone, "--count", "1000",
            ])
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
            "aioapns printed no JSON; exit \(output.status), stderr: \(output.stderr.suffix(2000))"
        )
        #expect(result["statuses"] as? [String: Int] == ["200": 1000], "\(result)")
        #expect(result["ids"] as? Int == 1000)
        #expect(sandbox.accepted(token: token).count == 1000)
        let numbers = Set(
            sandbox.accepted(token: token).compactMap { push -> Int? in
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
                return ((json?["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["n"] as? Int
            })
        #expect(numbers == Set(0..<1000))

        func answer(_ key: String) -> [String: Any] { result[key] as? [String: Any] ?? [:] }
        #expect(answer("badToken")["status"] as? String == "400" && answer("badToken")["reason"] as? String == "BadDeviceToken")
        #expect(answer("wrongTopic")["status"] as? String == "400" && answer("wrongTopic")["reason"] as? String == "TopicDisallowed")
        #expect(answer("tooLarge")["status"] as? String == "413" && answer("tooLarge")["reason"] as? String == "PayloadTooLarge")
        #expect(answer("unregistered")["status"] as? String == "410" && answer("unregistered")["reason"] as? String == "Unregistered")
        #expect(answer("unregistered")["timestamp"] as? Int == 1_767_000_000_250)
        #expect(sandbox.acceptedCount == 1000)
    }
}
