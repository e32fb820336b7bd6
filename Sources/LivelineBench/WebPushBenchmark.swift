import Foundation
import LivelineCrypto
import LivelineEngine
import LivelineModel
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import LivelineWebPush

/// `liveline-bench webpush`: web pushes per second through `Engine.notify` (an inbox record, the
/// outbox, encryption and VAPID at send time, libcurl over HTTP/1.1 with keep-alive) to the
/// sandbox's push service on this machine, which decrypts and verifies every one; and the cost of
/// one encryption. `scripts/bench-webpush.sh` runs pywebpush against the same receiver.
public enum WebPushBenchmark {
    /// Starts a push service with `subscriptions` simulated browsers, measures, and returns the
    /// service (the same receiver serves the peer afterwards) and the rate in pushes/s.
    public static func run(pushes count: Int, subscriptions: Int, output: @Sendable (String) -> Void) throws -> (WebPushService, Double) {
        let service = try WebPushService.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder)
        let client = try WebPushClient(allowInsecure: true)  // the receiver is plain http on this machine
        defer { client.shutdown() }
        let identity = VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: "mailto:bench@liveline.test")
        let engine = Engine(
            store: store, sender: RecordingPushSender(),
            configuration: EngineConfiguration(bundleID: "dev.liveline.bench"), webPush: WebPushTransport(sender: client, identity: identity))
        let user = try store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🔔", locale: "de", tokenHash: String(repeating: "c", count: 64), now: Date())
        for index in 0..<subscriptions {
            let browser = try service.subscribe()
            _ = try store.tokens.register(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "browser-\(index)", kind: .webPush, environment: .sandbox,
                    token: browser.subscription.canonicalJSON), now: Date())
        }
        engine.start()
        defer { _ = engine.stop() }
        let notifies = count / subscriptions
        let started = ContinuousClock.now
        for index in 0..<notifies {
            _ = try engine.notify(userID: user.id, title: "Bench \(index)", body: "a web push of the benchmark", dedupeKey: "bench:\(index)")
        }
        let committed = ContinuousClock.now
        let deadline = Date().addingTimeInterval(300)
        while service.allPushes.count < notifies * subscriptions {
            guard Date() < deadline else { throw EngineBenchmarkError("only \(service.allPushes.count) web pushes arrived after 300 s") }
            usleep(2000)
        }
        let elapsed = EngineBenchmark.seconds(ContinuousClock.now - started)
        let accepted = service.allPushes.filter { $0.status == 201 }.count
        guard accepted == notifies * subscriptions else {
            throw EngineBenchmarkError("\(accepted) of \(notifies * subscriptions) web pushes were accepted")
        }
        output(
            String(
                format: "liveline: %d notifies × %d browsers = %d web pushes accepted (decrypted, VAPID verified) in %.2f s = %.0f pushes/s "
                    + "(the notifies committed in %.2f s)",
                notifies, subscriptions, accepted, elapsed, Double(accepted) / elapsed, EngineBenchmark.seconds(committed - started)))

        // One encryption (a fresh sender key, ECDH, HKDF, AES-128-GCM), and one whole request
        // (encryption and the cached VAPID header), each the mean of many.
        let browser = try service.subscribe()
        let key = try ES256PublicKey(uncompressed: try requireBytes(Base64URL.decode(browser.subscription.keys.p256dh)))
        let payload = Array(#"{"title":"Bench","body":"a web push of the benchmark","dedupeKey":"bench:1","notificationId":1}"#.utf8)
        let rounds = 2000
        var clock = ContinuousClock.now
        for _ in 0..<rounds { _ = try WebPushPayload.encrypt(payload, to: key, authSecret: browser.authSecret) }
        let encryption = EngineBenchmark.seconds(ContinuousClock.now - clock) / Double(rounds) * 1e6
        clock = ContinuousClock.now
        for _ in 0..<rounds {
            _ = try WebPushMessage.request(
                payload: payload, to: browser.subscription, ttl: 60, urgency: "normal", topic: nil, identity: identity, now: Date())
        }
        let request = EngineBenchmark.seconds(ContinuousClock.now - clock) / Double(rounds) * 1e6
        output(
            String(
                format: "one encryption (RFC 8291, %d-byte payload): %.0f µs; one whole request (encryption, VAPID header cached): %.0f µs",
                payload.count, encryption, request))
        return (service, Double(accepted) / elapsed)
    }

    /// ``run(pushes:subscriptions:output:)``, then pywebpush sending `peerPushes` to the same
    /// receiver (`scripts/peers/pywebpush_bench.py` with the test venv's Python), and the ratio.
    public static func compare(pushes: Int, peerPushes: Int, repositoryRoot: URL, output: @Sendable (String) -> Void) throws {
        let (service, ours) = try run(pushes: pushes, subscriptions: 10, output: output)
        defer { service.stop() }
        let python = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        let script = repositoryRoot.appendingPathComponent("scripts/peers/pywebpush_bench.py").path
        let peer = try ChildProcess.run(python, [script, "--origin", service.origin, "--count", String(peerPushes)], timeout: 600)
        guard peer.termination == .exited(0),
            let result = try JSONSerialization.jsonObject(with: peer.output) as? [String: Any], let rate = result["rate"] as? Double
        else {
            throw EngineBenchmarkError("pywebpush failed: \(String(decoding: peer.errors, as: UTF8.self))")
        }
        output(
            String(
                format: "pywebpush (one requests.Session, same receiver): %d pushes, %d accepted, %.0f pushes/s",
                result["pushes"] as? Int ?? 0, result["accepted"] as? Int ?? 0, rate))
        output(String(format: "liveline / pywebpush = %.1f× (goal ≥ 10×)", ours / rate))
    }

    private static func requireBytes(_ bytes: [UInt8]?) throws -> [UInt8] {
        guard let bytes else { throw EngineBenchmarkError("a subscription key is not base64url") }
        return bytes
    }
}
