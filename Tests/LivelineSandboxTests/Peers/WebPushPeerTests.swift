import Foundation
import LivelineCrypto
import Testing
@testable import LivelineSandbox

/// An application server and a browser outside Swift (`webpush_peer.py`: http_ece, PyJWT and
/// urllib from the test virtualenv `.venv`) against the Web Push service, through its control API.
/// Fails, not skips, without `.venv` (`scripts/test-venv.sh`).
@Suite struct WebPushPeerTests {
    @Test func aPythonPeerSubscribesPushesAndReadsBackWhatTheServiceRecorded() async throws {
        let python = AioapnsPeerTests.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("\(python.path) is missing: run scripts/test-venv.sh (creates .venv with http_ece and PyJWT)")
            return
        }
        // The real clock: the peer puts time.time() in its VAPID token.
        let service = try WebPushService.start()
        defer { service.stop() }
        let plaintext = #"{"title":"Bread","body":"added by Sam"}"#
        let output = try await PeerProcess.run(
            python.path,
            [
                AioapnsPeerTests.root.appendingPathComponent("Tests/LivelineSandboxTests/Peers/webpush_peer.py").path,
                "--origin", service.origin, "--plaintext", plaintext,
            ])
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
            "the peer printed no JSON; exit \(output.status), stderr: \(output.stderr.suffix(2000))"
        )
        #expect(result["created"] as? Int == 201)
        let accepted = try #require(result["accepted"] as? [String: Any])
        #expect(accepted["status"] as? Int == 201 && accepted["location"] as? String == "/message/1")
        let refused = try #require(result["refused"] as? [String: Any])
        #expect(refused["status"] as? Int == 400 && (refused["body"] as? [String: String]) == ["reason": "BadTtl"])
        #expect(result["decryptedHere"] as? String == plaintext)

        let id = try #require(result["id"] as? String)
        let recorded = service.pushes(subscriptionID: id)
        #expect(recorded.map(\.status) == [201, 400])
        #expect(recorded.first?.plaintextText == plaintext)
        #expect(recorded.first?.vapid.map { Base64URL.encode($0.publicKey) } == result["k"] as? String)
        let reported = try #require(result["pushes"] as? [[String: Any]])
        #expect(reported.map { $0["status"] as? Int } == [201, 400])
        #expect(reported.map { $0["refusal"] as? String } == [nil, "BadTtl"])
        #expect(reported.first?["plaintext"] as? String == Base64URL.encode(Array(plaintext.utf8)))
        #expect(reported.first?["urgency"] as? String == "normal" && reported.first?["ttl"] as? Int == 120)
    }
}
