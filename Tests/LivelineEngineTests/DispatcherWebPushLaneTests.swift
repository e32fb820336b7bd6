import Foundation
import LivelineCrypto
import LivelineEngine
import LivelineLog
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// The web push lane (`Dispatcher+WebPushLane.swift`): rows of web pushes are not waited for,
/// and their answers are recorded like any others — a recording that fails is kept and claims
/// nothing new.
@Suite struct DispatcherWebPushLaneTests {
    /// A push service stand-in that keeps every push until told to answer.
    final class HeldPushService: WebPushSender, Sendable {
        let held = Mutex<[@Sendable (WebPushResponse) -> Void]>([])
        let sent = Atomic<Int>(0)

        func send(_ request: WebPushRequest, completion: @escaping @Sendable (WebPushResponse) -> Void) {
            sent.add(1, ordering: .relaxed)
            held.withLock { $0.append(completion) }
        }

        func answerAll(status: Int = 201) {
            for completion in held.withLock({ held in
                defer { held.removeAll() }; return held
            }) {
                completion(WebPushResponse(status: status))
            }
        }
    }

    @Test func aLaneRecordingThatFailsIsKeptAndNothingNewIsClaimed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-lane-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let faults = FaultyDatabase.Faults()
        let store = try Store.open(FaultyDatabase(inner: try TestBackend.database(folder: folder), faults: faults))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let user = try store.accounts.createUser(
            household: "H", name: "U", avatarTint: "azure", emoji: "🔔", locale: "de", tokenHash: UUID().uuidString, now: clock.now)
        let service = HeldPushService()
        let log = LogSink.inMemory()
        let engine = Engine(
            store: store, sender: ScriptedSender(),
            configuration: EngineConfiguration(
                bundleID: "dev.liveline.test", dispatcherID: "d", lease: 30, minimumPushInterval: 0, clock: clock.function),
            registry: .builtIn,
            webPush: WebPushTransport(
                sender: service, identity: VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: "mailto:ops@liveline.test")),
            logger: Logger(sink: log, level: .debug))
        defer { engine.stop() }
        let browser = try ES256PrivateKey.generate()
        let subscription = WebPushSubscription(
            endpoint: "https://push.example/sub",
            keys: .init(p256dh: Base64URL.encode(browser.publicKey.uncompressed), auth: Base64URL.encode(SecureRandom.bytes(16))))
        try store.tokens.register(
            TokenRegistration(
                householdID: user.householdID, userID: user.id, deviceID: "laptop", kind: .webPush, environment: .sandbox,
                token: subscription.canonicalJSON),
            now: clock.now)

        _ = try engine.notify(userID: user.id, title: "one", dedupeKey: "1")
        #expect(engine.dispatcher.runOnce() == 1)
        #expect(service.sent.load(ordering: .relaxed) == 1)
        #expect(try store.outbox.depth(now: clock.now).leased == 1, "sent, not waited for: its row is still out")
        service.answerAll()
        _ = try engine.notify(userID: user.id, title: "two", dedupeKey: "2")
        faults.arm(failAt: 1)  // the lane row's recording: a failing disk, so the plan is kept
        _ = engine.dispatcher.runOnce()
        #expect(log.lines.filter { $0.contains("recordingFailed") }.count == 1)
        #expect(service.sent.load(ordering: .relaxed) == 1, "nothing new is claimed while a plan is kept")

        // The disk is back: the kept plan is recorded first, then the second notify goes out.
        clock.advance(by: 1)
        #expect(engine.dispatcher.runOnce() >= 1)
        #expect(service.sent.load(ordering: .relaxed) == 2)
        service.answerAll()
        engine.dispatcher.drain()
        let depth = try store.outbox.depth(now: clock.now)
        #expect(depth.leased == 0 && depth.due == 0 && depth.dead == 0, "\(depth)")
    }

    /// Registration checks a key's shape only; a key that is no point on P-256 ends its
    /// subscription at its first push: nothing is sent, the token is invalid with the reason (the
    /// dashboard shows it), the row is a dead letter saying why, and later notifies queue no web
    /// push for it.
    @Test func aKeyThatIsNoPointEndsItsSubscriptionAtItsFirstPush() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-lane-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.open(try TestBackend.database(folder: folder))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let user = try store.accounts.createUser(
            household: "H", name: "U", avatarTint: "azure", emoji: "🔔", locale: "de", tokenHash: UUID().uuidString, now: clock.now)
        let service = HeldPushService()
        let log = LogSink.inMemory()
        let engine = Engine(
            store: store, sender: ScriptedSender(),
            configuration: EngineConfiguration(
                bundleID: "dev.liveline.test", dispatcherID: "d", lease: 30, minimumPushInterval: 0, clock: clock.function),
            registry: .builtIn,
            webPush: WebPushTransport(
                sender: service, identity: VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: "mailto:ops@liveline.test")),
            logger: Logger(sink: log, level: .debug))
        defer { engine.stop() }
        let subscription = WebPushSubscription(
            endpoint: "https://push.example/sub",
            keys: .init(p256dh: Base64URL.encode([0x04] + [UInt8](repeating: 7, count: 64)), auth: Base64URL.encode(SecureRandom.bytes(16))))
        try store.tokens.register(
            TokenRegistration(
                householdID: user.householdID, userID: user.id, deviceID: "laptop", kind: .webPush, environment: .sandbox,
                token: subscription.canonicalJSON),
            now: clock.now)

        #expect(try engine.notify(userID: user.id, title: "one", dedupeKey: "1").queued["web-push"] == 1)
        _ = engine.dispatcher.runOnce()
        engine.dispatcher.drain()
        #expect(service.sent.load(ordering: .relaxed) == 0)
        let token = try #require(try store.tokens.history(householdID: user.householdID).first)
        #expect(token.status == .invalid && token.endReason?.contains("not a P-256 public key") == true, "\(token)")
        #expect(try store.outbox.depth(now: clock.now).dead == 1)
        #expect(log.lines.contains { $0.contains("tokenInvalidated") && $0.contains("no push can be encrypted for") }, "\(log.lines)")
        #expect(try engine.notify(userID: user.id, title: "two", dedupeKey: "2").queued["web-push"] == 0)
    }
}
