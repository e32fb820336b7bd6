import Foundation
import Liveline
import LivelineCrypto
import LivelineEngine
import LivelineModel
import LivelinePushWire
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import LivelineWebPush

/// `liveline-bench webpush`: web pushes per second through `Engine.notify` (an inbox record, the
/// outbox, encryption and VAPID at send time, libcurl over HTTP/1.1 with keep-alive) and the cost
/// of one encryption, beside pywebpush sending to the same receiver in the same run. Two receivers
/// on this machine: a lean one that answers 201 to every POST (nginx, started by
/// `scripts/bench-webpush.sh`), which measures the senders; and the sandbox's push service, which
/// decrypts and verifies every push (and costs as much CPU as the sender, on the same two cores).
public enum WebPushBenchmark {
    /// Where the pushes go: the sandbox's push service, or an origin that accepts every POST with
    /// the subscriptions' endpoints moved there.
    enum Receiver {
        case sandbox
        case lean(origin: String)

        var name: String {
            switch self {
            case .sandbox: "the sandbox's push service (decrypts and verifies every push)"
            case .lean(let origin): "a lean receiver (\(origin) answers 201 to every POST)"
            }
        }

        func endpoint(of browser: SimulatedSubscription, index: Int) -> WebPushSubscription {
            switch self {
            case .sandbox: browser.subscription
            case .lean(let origin): WebPushSubscription(endpoint: "\(origin)/push/\(index)", keys: browser.subscription.keys)
            }
        }
    }

    /// Sends `count` web pushes through `notify` to `subscriptions` browsers of one user (one
    /// notify reaches all of them) and returns the rate in pushes/s, from the first notify to the
    /// last answer.
    static func run(
        pushes count: Int, subscriptions: Int, service: WebPushService, receiver: Receiver, output: @Sendable (String) -> Void
    )
        throws -> Double
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder)
        let client = try WebPushClient(allowInsecure: true)  // the receivers are plain http on this machine
        defer { client.shutdown() }
        let identity = VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: "mailto:bench@liveline.test")
        let engine = Engine(
            store: store, sender: RecordingPushSender(),
            configuration: EngineConfiguration(bundleID: "dev.liveline.bench"), registry: Assembly.contracts(),
            webPush: WebPushTransport(sender: client, identity: identity))
        let user = try store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🔔", locale: "de", tokenHash: String(repeating: "c", count: 64), now: Date())
        for index in 0..<subscriptions {
            let subscription = receiver.endpoint(of: try service.subscribe(), index: index)
            _ = try store.tokens.register(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "browser-\(index)", kind: .webPush, environment: .sandbox,
                    token: subscription.canonicalJSON), now: Date())
        }
        engine.start()
        defer { _ = engine.stop() }
        let notifies = count / subscriptions
        let total = notifies * subscriptions
        let receivedBefore = service.allPushes.count
        let cpuBefore = CPUTimes.now()
        let started = ContinuousClock.now
        for index in 0..<notifies {
            _ = try engine.notify(userID: user.id, title: "Bench \(index)", body: "a web push of the benchmark", dedupeKey: "bench:\(index)")
        }
        let committed = ContinuousClock.now
        let deadline = Date().addingTimeInterval(300)
        while engine.metrics.snapshot.webPushes.values.reduce(0, +) < total {
            guard Date() < deadline else { throw EngineBenchmarkError("only \(engine.metrics.snapshot.webPushes) answers after 300 s") }
            usleep(1000)
        }
        let elapsed = EngineBenchmark.seconds(ContinuousClock.now - started)
        let cpu = CPUTimes.now().since(cpuBefore)
        let answers = engine.metrics.snapshot.webPushes
        guard answers[201] == total else { throw EngineBenchmarkError("\(total) web pushes were answered \(answers) (status: count)") }
        if case .sandbox = receiver {
            let received = service.allPushes.dropFirst(receivedBefore)
            let decrypted = received.filter { $0.status == 201 && $0.plaintext != nil && $0.vapid != nil }.count
            guard decrypted == total else { throw EngineBenchmarkError("the push service decrypted and verified \(decrypted) of \(total)") }
        }
        output(
            String(
                format: "liveline → %@: %d notifies × %d browsers = %d web pushes accepted in %.2f s = %.0f pushes/s "
                    + "(the notifies committed in %.2f s; CPU of the %d cores %.0f %% busy)",
                receiver.name, notifies, subscriptions, total, elapsed, Double(total) / elapsed, EngineBenchmark.seconds(committed - started),
                cpu.cores, cpu.busyShare * 100))
        return Double(total) / elapsed
    }

    /// One encryption (a fresh sender key, ECDH, HKDF, AES-128-GCM), and one whole request
    /// (reading the subscription's keys, encryption and the cached VAPID header), each the mean
    /// of many.
    static func encryptionCost(service: WebPushService, output: @Sendable (String) -> Void) throws {
        let browser = try service.subscribe()
        let identity = VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: "mailto:bench@liveline.test")
        let point = try requireBytes(Base64URL.decode(browser.subscription.keys.p256dh))
        let payload = Array(#"{"title":"Bench","body":"a web push of the benchmark","dedupeKey":"bench:1","notificationId":1}"#.utf8)
        let rounds = 5000
        for _ in 0..<500 { _ = try WebPushPayload.encrypt(payload, toPoint: point, authSecret: browser.authSecret) }  // warm-up
        var clock = ContinuousClock.now
        for _ in 0..<rounds { _ = try WebPushPayload.encrypt(payload, toPoint: point, authSecret: browser.authSecret) }
        let encryption = EngineBenchmark.seconds(ContinuousClock.now - clock) / Double(rounds) * 1e6
        clock = ContinuousClock.now
        for _ in 0..<rounds {
            _ = try WebPushMessage.request(
                payload: payload, to: browser.subscription, ttl: 60, urgency: "normal", topic: nil, identity: identity, now: Date())
        }
        let request = EngineBenchmark.seconds(ContinuousClock.now - clock) / Double(rounds) * 1e6
        output(
            String(
                format:
                    "one encryption (RFC 8291, %d-byte payload): %.0f µs; one whole request (keys read, encryption, VAPID header cached): %.0f µs",
                payload.count, encryption, request))
    }

    /// For each receiver (the lean one at `leanOrigin` first, when given, then the sandbox's push
    /// service): ``run(pushes:subscriptions:service:receiver:output:)``, then pywebpush sending
    /// `peerPushes` to the same receiver (`scripts/peers/pywebpush_bench.py` with the test venv's
    /// Python), and the ratio; then the cost of one encryption.
    public static func compare(pushes: Int, peerPushes: Int, leanOrigin: String?, repositoryRoot: URL, output: @Sendable (String) -> Void) throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let receivers: [Receiver] = (leanOrigin.map { [.lean(origin: $0)] } ?? []) + [.sandbox]
        for receiver in receivers {
            let ours = try run(pushes: pushes, subscriptions: 10, service: service, receiver: receiver, output: output)
            let peer = try pywebpush(count: peerPushes, service: service, receiver: receiver, repositoryRoot: repositoryRoot)
            output(
                String(
                    format: "pywebpush (one requests.Session, one push at a time; liveline keeps 8 in flight) → the same receiver: "
                        + "%d pushes accepted, %.0f pushes/s", peerPushes, peer))
            output(String(format: "liveline / pywebpush = %.1f× (goal ≥ 10×)", ours / peer))
        }
        try encryptionCost(service: service, output: output)
    }

    /// pywebpush's rate in pushes/s; throws unless every push was accepted.
    private static func pywebpush(count: Int, service: WebPushService, receiver: Receiver, repositoryRoot: URL) throws -> Double {
        let python = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        let script = repositoryRoot.appendingPathComponent("scripts/peers/pywebpush_bench.py").path
        var arguments = [script, "--origin", service.origin, "--count", String(count)]
        if case .lean(let origin) = receiver { arguments += ["--endpoint-origin", origin] }
        let peer = try ChildProcess.run(python, arguments, timeout: 600)
        guard peer.termination == .exited(0),
            let result = try JSONSerialization.jsonObject(with: peer.output) as? [String: Any], let rate = result["rate"] as? Double
        else {
            throw EngineBenchmarkError("pywebpush failed: \(String(decoding: peer.errors, as: UTF8.self))")
        }
        guard result["accepted"] as? Int == count else { throw EngineBenchmarkError("pywebpush: \(result)") }
        return rate
    }

    private static func requireBytes(_ bytes: [UInt8]?) throws -> [UInt8] {
        guard let bytes else { throw EngineBenchmarkError("a subscription key is not base64url") }
        return bytes
    }
}
