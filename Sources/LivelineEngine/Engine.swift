import Foundation
import LivelineLog
import LivelineModel
import LivelinePushWire
import LivelineStore

/// The generic engine every feature uses: a change commits, the context's revision goes up, and
/// the dispatcher brings the current full snapshot to every channel and token, at least once,
/// at the priority the budget allows. Features register a `SnapshotSource` per activity type;
/// contexts of the `/v1` API keep their state as given. Besides: push-to-start, the lifecycle
/// (deadlines, dismissals, receipts, unanswered starts), broadcast channels and notify.
///
/// What goes wrong or changes shape — a recording that failed, a busy database, a dead letter, a
/// token invalidated, a channel created, deleted or reconciled, a start that failed — is an event
/// in `logger` (``EngineEvent``: one JSON line each, naming the context key and `apns-id`).
public final class Engine: Sendable {
    let store: Store
    public let configuration: EngineConfiguration
    public let dispatcher: Dispatcher
    public let metrics: EngineMetrics
    /// Where the engine's events go.
    public let logger: Logger
    let renderer: SyncRenderer
    /// The Live Activity contracts it checks and renders against: the root's registry.
    public var contracts: ContractRegistry { renderer.registry }
    /// The contracts loaded at run time, their versions and where they are installed.
    public let library: ContractLibrary
    /// Whether writes are being refused for lack of disk space (`/metrics` says it).
    public var isStorageFull: Bool { store.database.isStorageFull }
    let channels: ChannelManager
    let lifecycle: LifecycleSweeper
    let starter: Starter
    /// Renewals before the 8-hour limit (`docs/engine.md`, "Renewal").
    let renewer: Renewer
    let notifier: Notifier

    /// `sender` reaches `configuration.environment`; `otherSenders` each reach another APNs
    /// environment, whose tokens are pushed through it (a development build's beside App Store
    /// builds). A context gets a broadcast channel in each environment its devices are started in.
    public init(
        store: Store, sender: any PushSender, otherSenders: [PushEnvironment: any PushSender] = [:], configuration: EngineConfiguration,
        sources: [String: any SnapshotSource] = [:], periodic: [any PeriodicTask] = [], registry: ContractRegistry,
        webPush: WebPushTransport? = nil, logger: Logger = .discarding
    ) {
        var configuration = configuration
        // Asked per token of a fan-out: a compiled-in type (no file, no lifecycle) is answered
        // without a lookup.
        configuration.contractLifecycle = { type in registry.isBuiltIn(type) ? nil : registry.loaded.contract(named: type)?.file?.lifecycle }
        let others = otherSenders.filter { $0.key != configuration.environment }
        configuration.otherEnvironments = others.keys.sorted { $0.rawValue < $1.rawValue }
        self.store = store
        self.configuration = configuration
        let metrics = EngineMetrics()
        self.metrics = metrics
        self.logger = logger
        renderer = SyncRenderer(store: store, configuration: configuration, sources: sources, registry: registry)
        library = ContractLibrary(store: store, registry: registry, clock: configuration.clock, logger: logger)
        channels = ChannelManager(
            store: store, sender: sender, otherSenders: others, configuration: configuration, metrics: metrics, logger: logger)
        let starter = Starter(store: store, renderer: renderer, channels: channels, configuration: configuration)
        self.starter = starter
        let renewer = Renewer(store: store, starter: starter, configuration: configuration, logger: logger)
        self.renewer = renewer
        let lifecycle = LifecycleSweeper(
            store: store, configuration: configuration, channels: channels, metrics: metrics, logger: logger, tasks: periodic, renewer: renewer
        )
        self.lifecycle = lifecycle
        // Web pushes are queued only where they can be sent (a VAPID identity and a client).
        let notifyChannels: [any NotificationChannel] =
            [AlertPushChannel(store: store, configuration: configuration)] + (webPush == nil ? [] : [WebPushChannel(store: store)])
        notifier = Notifier(store: store, channels: notifyChannels)
        dispatcher = Dispatcher(
            store: store, sender: sender, otherSenders: others, webPush: webPush, renderer: renderer, configuration: configuration,
            metrics: metrics, logger: logger, periodic: { lifecycle.runIfDue() }, renewer: renewer
        )
    }

    /// Starts the dispatcher's thread (it also runs the lifecycle's periodic work).
    public func start() {
        channels.start()
        lifecycle.start()
        dispatcher.start()
    }

    /// Stops the dispatcher after the batch in flight and waits for a channel reconcile in
    /// progress and for APNs's answers to channel creations being recorded; false when that took
    /// longer than `timeout` (call it again to wait again, e.g. after shutting the APNs client
    /// down, which fails what still waits for an answer). Once it returned true no thread of the
    /// engine runs but the timer that gives up on a channel creation APNs never answered
    /// (`channelCreationTimeout`), which then only logs and drops its waiters.
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Bool {
        let started = ContinuousClock.now
        let stopped = dispatcher.stop(timeout: timeout)
        let reconciled = lifecycle.stop(timeout: max(.zero, timeout - (ContinuousClock.now - started)))
        return channels.stop(timeout: max(.zero, timeout - (ContinuousClock.now - started))) && reconciled && stopped
    }

    /// Pull-reconcile (`docs/engine.md`, "Contexts, revisions, snapshots"): in one read transaction,
    /// the revision first; when it equals `sinceRev`, `.unchanged` and nothing else is read;
    /// else the context and its full content state, built from that same transaction. Nil for an
    /// unknown key.
    public func snapshot(key: String, sinceRev: Int?) throws -> ContextSnapshotRead? {
        try store.database.read { transaction -> ContextSnapshotRead? in
            switch try store.contexts.snapshotRead(key: key, sinceRev: sinceRev, in: transaction) {
            case nil:
                return nil
            case .unchanged(let key, let activityType, let state, let rev)?:
                return .unchanged(key: key, activityType: activityType, state: state, rev: rev)
            case .changed(let context)?:
                return .changed(context, contentState: try renderer.contentState(of: context, in: transaction))
            }
        }
    }

    /// Starts the context's activity by push-to-start on the devices of `userIDs` and on
    /// `deviceIDs` (`docs/engine.md`, "Lifecycle"): one start per device however often it is asked,
    /// within each device's start budget, not for users who dismissed it (unless
    /// `includeDismissed`). With `useChannel` the context gets a broadcast channel first (if it
    /// has none) and the start carries `input-push-channel` — unless `startsFollowChannel` is
    /// false: then the started activities get update tokens (`input-push-token: 1`) and the
    /// channel serves the cards apps start themselves. Throws `.notFound`, `.contextEnded`, or an
    /// `EngineError` when the start payload would be dropped by the phone. With `at`, the starts
    /// go out then (`docs/api.md`, "Scheduled starts"): reserved and counted in the budget now,
    /// sent at `at` (or within the grace period after it, else recorded as missed); `.invalid`
    /// when `at` is outside ``EngineConfiguration/scheduledStartProblem(at:now:)``'s bounds.
    public func startActivities(
        contextKey: String, userIDs: [UserID], deviceIDs: [String], alert: LiveActivityAlert, includeDismissed: Bool = false,
        useChannel: Bool = false, startsFollowChannel: Bool = true, at: Date? = nil
    ) throws -> StartResult {
        try starter.start(
            contextKey: contextKey, userIDs: userIDs, deviceIDs: deviceIDs, alert: alert, includeDismissed: includeDismissed,
            useChannel: useChannel, startsFollowChannel: startsFollowChannel, at: at, now: configuration.clock()
        )
    }

    /// An inbox record for the user, an alert push to each of their devices and a web push to each
    /// of their browser subscriptions (when this server sends web pushes), once per dedupe key.
    public func notify(
        userID: UserID, title: String, body: String? = nil, link: String? = nil, icon: String? = nil, dedupeKey: String,
        webPush: WebPushOptions = WebPushOptions()
    ) throws -> NotifyResult {
        try notifier.notify(
            userID: userID, title: title, body: body, link: link, icon: icon, dedupeKey: dedupeKey, webPush: webPush, now: configuration.clock())
    }

    /// The pushes of the user's notification with `dedupeKey` and their answers, and its dead
    /// letters, newest first; nil when the user has no such notification.
    public func notificationTimeline(userID: UserID, dedupeKey: String, limit: Int = 200) throws -> [TimelineEntry]? {
        guard try store.notifications.notification(userID: userID, dedupeKey: dedupeKey) != nil else { return nil }
        return try store.notifications.timeline(userID: userID, dedupeKey: dedupeKey, limit: limit)
    }

    /// Sets `resolved = 1` on the user's record with `dedupeKey`; false when there is none.
    @discardableResult
    public func resolve(userID: UserID, dedupeKey: String) throws -> Bool {
        try store.notifications.resolve(userID: userID, dedupeKey: dedupeKey)
    }

    /// Checks an update push of `type` with this content state as the dispatcher would render it
    /// now (size, dates, alert, decoding into the contract), before a caller stores the state.
    public func checkUpdate(type: String, contentState: JSONValue, alert: JSONValue?, relevanceScore: Double?) -> PayloadCheckReport {
        let now = configuration.clock()
        let aps = renderer.updateAPS(
            type: type, state: contentState, timestamp: Int(now.timeIntervalSince1970), ended: false, alert: alert,
            relevanceScore: relevanceScore, now: now
        )
        let payload = JSONValue.object(["aps": aps])
        return PayloadCheck(destination: .device, now: now, registry: renderer.registry).check(
            json: payload.compactJSON, document: payload, typeName: type)
    }

    /// The lifecycle's periodic work now, whatever its interval (tests, tools).
    public func sweepLifecycle() { lifecycle.sweep(now: configuration.clock()) }
}

/// The engine's answer to a pull: the revision alone, or the context with its content state.
public enum ContextSnapshotRead: Sendable {
    case unchanged(key: String, activityType: String, state: ContextState, rev: Int)
    case changed(ContextRecord, contentState: JSONValue)
}
