import Foundation
import LivelineCookSuggestModel
import LivelineEngine
import LivelineModel
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// `docs/engine.md`, "Widget pushes", without a network: which widget tokens a change reaches,
/// and that their pushes are outbox rows of the change's own transaction, coalesced and paced.
@Suite struct EngineWidgetPushTests {
    static let interval: TimeInterval = 600
    static let trip = TripLiveActivityAttributes.typeName

    /// An engine whose `transit` widget kind shows trips, on a clock moved by hand.
    final class Fixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-engine-widgets-\(UUID().uuidString)")
        let store: Store
        let engine: Engine
        let clock = ManualClock(Date(timeIntervalSince1970: 1_765_000_000))
        let sender = RecordingPushSender()

        init() throws {
            store = try TestBackend.openStore(folder: folder)
            var configuration = EngineConfiguration(bundleID: "dev.liveline.demo", minimumPushInterval: 0, clock: clock.function)
            configuration.widgetPushes = WidgetPushes(
                interval: EngineWidgetPushTests.interval, typesByFeature: ["transit": [EngineWidgetPushTests.trip]])
            engine = Engine(store: store, sender: sender, configuration: configuration, registry: .builtIn)
        }

        func user(_ name: String, household: String = "H") throws -> UserRecord {
            try store.accounts.createUser(
                household: household, name: name, avatarTint: "azure", emoji: "x", locale: "de", tokenHash: UUID().uuidString, now: Date())
        }

        @discardableResult
        func widgets(_ user: UserRecord, device: String, kinds: [String]) throws -> PushTokenID {
            let token = String(repeating: String(device.count % 10), count: 64)
            try engine.registerToken(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: device, kind: .widgets, environment: .sandbox,
                    token: token + device.unicodeScalars.map { String(format: "%02x", $0.value) }.joined(), widgetKinds: kinds))
            return try #require(try store.tokens.activeTokens(userID: user.id).first { $0.deviceID == device }?.id)
        }

        /// A change of the household's trip `key` (created on its first).
        func change(_ key: String, of user: UserRecord) throws {
            try engine.write { change in
                if try change.context(key) == nil {
                    try change.createContext(key: key, activityType: EngineWidgetPushTests.trip, householdID: user.householdID, attributes: "{}")
                }
                try change.recordChange(key)
            }
        }

        /// The widget push rows of the token `id`, oldest first.
        func pushes(_ id: PushTokenID) throws -> [OutboxRow] {
            try store.database.read { transaction in
                try transaction.query(
                    "SELECT id FROM outbox WHERE idempotency_key LIKE $1 ORDER BY due_at", [.text("widgets:\(id.rawValue):%")]
                )
                .map { try #require(try store.outbox.row(id: $0.int("id"))) }
            }
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func aChangeReachesTheHouseholdsWidgetsThatShowItsType() throws {
        let fixture = try Fixture()
        let ada = try fixture.user("Ada")
        let byFeature = try fixture.widgets(ada, device: "phone", kinds: ["transit"])
        let byType = try fixture.widgets(ada, device: "ipad", kinds: ["shopping", Self.trip])
        let other = try fixture.widgets(ada, device: "watch", kinds: [CookSuggestActivityAttributes.typeName])
        let elsewhere = try fixture.widgets(try fixture.user("Eve", household: "E"), device: "phone-e", kinds: ["transit"])
        try fixture.change("trip:ada", of: ada)
        for id in [byFeature, byType] {
            let rows = try fixture.pushes(id)
            #expect(rows.count == 1 && rows.first?.status == .due && rows.first?.target == .token(id))
            #expect(rows.first?.payload == Array(#"{"aps":{"content-changed":true}}"#.utf8))
            #expect(rows.first?.headers?.contains(#""pushType":"widgets""#) == true, "\(rows.first?.headers ?? "")")
        }
        #expect(try fixture.pushes(other).isEmpty && fixture.pushes(elsewhere).isEmpty)
    }

    @Test func aRevisionNoWidgetSeesQueuesNoWidgetPush() throws {
        let fixture = try Fixture()
        let ada = try fixture.user("Ada")
        let id = try fixture.widgets(ada, device: "phone", kinds: ["transit"])
        try fixture.engine.write { change in
            try change.createContext(key: "trip:ada", activityType: Self.trip, householdID: ada.householdID, attributes: "{}")
            try change.recordChange("trip:ada", note: "renewal", widgetsSeeIt: false)
        }
        #expect(try fixture.pushes(id).isEmpty, "a renewal's revision spends no reload")
        try fixture.change("trip:ada", of: ada)
        #expect(try fixture.pushes(id).count == 1)
    }

    @Test func aPushQueuedForAWidgetTokenGoesToTheTokenThatReplacedIt() throws {
        let fixture = try Fixture()
        let ada = try fixture.user("Ada")
        let old = try fixture.widgets(ada, device: "phone", kinds: ["transit"])
        try fixture.change("trip:ada", of: ada)
        #expect(try fixture.pushes(old).count == 1)
        // The widget extension hands over a new token before the push went out.
        let token = String(repeating: "ab", count: 32)
        try fixture.engine.registerToken(
            TokenRegistration(
                householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .widgets, environment: .sandbox, token: token,
                widgetKinds: ["transit"]))
        fixture.engine.dispatcher.drain()
        let sent = fixture.sender.requests.compactMap { request -> String? in
            if case .device(let notification) = request, notification.pushType == .widgets { return notification.deviceToken }
            return nil
        }
        #expect(sent == [token], "the change's push reached the device's token of its time")
    }

    @Test func changesCoalesceWhileAPushIsDueAndArePacedAfterItWent() throws {
        let fixture = try Fixture()
        let ada = try fixture.user("Ada")
        let id = try fixture.widgets(ada, device: "phone", kinds: ["transit"])
        try fixture.change("trip:ada", of: ada)
        try fixture.change("trip:ada", of: ada)
        #expect(try fixture.pushes(id).count == 1, "a change rides on the push still due")

        // A write that fails takes its widget push with it.
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try fixture.engine.write { change in
                try change.recordChange("trip:ada")
                throw Failure()
            }
        }
        let first = try #require(try fixture.pushes(id).first)
        #expect(try fixture.pushes(id).count == 1)
        try fixture.store.database.write { try $0.execute("UPDATE outbox SET status = 'done' WHERE id = $1", [.integer(Int64(first.id))]) }

        // Sent: the next change waits for the interval, and the ones after it ride on that push.
        fixture.clock.advance(by: 60)
        try fixture.change("trip:ada", of: ada)
        try fixture.change("trip:ada", of: ada)
        let rows = try fixture.pushes(id)
        #expect(rows.count == 2 && rows.last?.status == .due)
        #expect(rows.last?.dueAt == first.dueAt.addingTimeInterval(Self.interval))
    }
}
