import Foundation
import LivelineEngine
import LivelineLog
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport

/// An engine over a SQLite file that can be made to fail (``FaultyDatabase``), an in-memory
/// APNs (``ScriptedSender``), a clock the test moves, and a log kept in memory.
final class EngineHarness: Sendable {
    static let contextKey = "trip:1"
    static let attributes = #"{"tripId":"t","line":"5","destination":"B"}"#

    let folder: URL
    let faults: FaultyDatabase.Faults
    let store: Store
    let sender: ScriptedSender
    let clock: ManualClock
    let log = LogSink.inMemory()
    let engine: Engine
    let householdID: HouseholdID
    let userID: UserID

    /// A new data folder, or — with `sharing` — a second engine (another dispatcher) on the same
    /// database, APNs and clock. `tokenPageSize`: ``EngineConfiguration/tokenPageSize``.
    init(
        retry: RetryPolicy = RetryPolicy(initialDelay: .seconds(1), jitter: 0, maximumAttempts: 5), dispatcherID: String = "dispatcher-a",
        tokenPageSize: Int? = nil, sharing other: EngineHarness? = nil
    ) throws {
        if let other {
            folder = other.folder
            faults = other.faults
            store = other.store
            sender = other.sender
            clock = other.clock
            householdID = other.householdID
            userID = other.userID
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-recording-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            faults = FaultyDatabase.Faults()
            store = try Store.open(FaultyDatabase(inner: try TestBackend.database(folder: folder), faults: faults))
            sender = ScriptedSender()
            clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let user = try store.accounts.createUser(
                household: "H", name: "U", avatarTint: "azure", emoji: "x", locale: "de", tokenHash: UUID().uuidString, now: clock.now
            )
            householdID = user.householdID
            userID = user.id
        }
        var configuration = EngineConfiguration(
            bundleID: "dev.liveline.test", dispatcherID: dispatcherID, lease: 30, retryPolicy: retry, minimumPushInterval: 0, clock: clock.function
        )
        if let tokenPageSize { configuration.tokenPageSize = tokenPageSize }
        engine = Engine(store: store, sender: sender, configuration: configuration, registry: .builtIn, logger: Logger(sink: log, level: .debug))
    }

    var dispatcher: Dispatcher { engine.dispatcher }

    /// Registers a device token of `kind` (an `la-update` token for the context, or a
    /// push-to-start token for trips) and returns its row id and the token.
    func token(_ index: Int, kind: PushTokenKind = .update) throws -> (id: PushTokenID, token: String) {
        let token = String(format: "%064x", 0xfeed0000 + index)
        try store.tokens.register(
            TokenRegistration(
                householdID: householdID, userID: userID, deviceID: "phone-\(index)", kind: kind, environment: .sandbox, token: token,
                attributesType: kind == .pushToStart ? "TripLiveActivityAttributes" : nil, contextKey: kind == .update ? Self.contextKey : nil
            ), now: clock.now)
        guard let id = try store.tokens.activeTokens(userID: userID).first(where: { $0.token == token })?.id else {
            throw StoreError(.notFound, "token \(index) was not registered")
        }
        return (id, token)
    }

    /// A `/v1` change of the trip: its delay, and an alert and a priority for the next push when given.
    func put(delay: Int, alert: String? = nil, priority: Int? = nil, key: String = EngineHarness.contextKey) throws {
        let state =
            #"{"currentStop":"A","nextStop":"B","nextStopTime":803461320,"remainingTime":240,"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}"#
        let hint = try alert.map { try JSONDecoder().decode(LiveActivityAlert.self, from: Data($0.utf8)) }
        try engine.putContext(
            key: key,
            PutContextRequest(
                type: "TripLiveActivityAttributes", attributes: try JSONValue(json: Data(Self.attributes.utf8)),
                contentState: try JSONValue(json: Data(state.utf8)), alert: hint, priority: priority
            ))
    }

    /// A push-to-start token, the trip put (its first update goes nowhere), and a start queued for it.
    func queueStart() throws -> StartResult {
        _ = try token(0, kind: .pushToStart)
        try put(delay: 2)
        dispatcher.drain()
        return try engine.startActivities(contextKey: Self.contextKey, userIDs: [userID], deviceIDs: [], alert: LiveActivityAlert(title: "S5"))
    }

    /// A broadcast channel of the context, as if APNs had created it.
    func attachChannel(_ channelID: String = "Y2hhbm5lbC0x") throws -> String {
        try store.write { transaction in
            try store.channels.insert(
                channelID: channelID, purpose: "context", ownerKind: .context, owner: Self.contextKey, storagePolicy: 1, environment: "sandbox",
                now: clock.now, in: transaction
            )
            try store.channels.link(contextKey: Self.contextKey, environment: .sandbox, channelID: channelID, in: transaction)
        }
        return channelID
    }

    /// The context's channel in the development environment (the harness's only one).
    func contextChannel() throws -> String? { try store.channels.contextChannel(key: Self.contextKey, environment: .sandbox) }

    func deliveries() throws -> [DeliveryAttempt] { try store.deliveries.attempts(contextKey: Self.contextKey) }

    func rows() throws -> [OutboxRow] { try store.outbox.rows(contextKey: Self.contextKey) }

    /// The engine's log lines named `event`, parsed.
    func events(_ event: String) -> [[String: Any]] {
        log.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.filter { $0["event"] as? String == event }
    }

    func stop() {
        engine.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
