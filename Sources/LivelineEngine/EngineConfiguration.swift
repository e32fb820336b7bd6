import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

/// How the engine sends: where, how often, at which priority, and the lifecycle's clocks.
public struct EngineConfiguration: Sendable {
    /// The app's bundle id (topics are derived from it).
    public var bundleID: String
    /// The APNs environment whose tokens are pushed to.
    public var environment: PushEnvironment
    /// The other APNs environments this engine pushes to besides ``environment`` (set by the
    /// engine from the senders it is given): their tokens and channels get pushes through their
    /// own sender.
    public internal(set) var otherEnvironments: [PushEnvironment] = []
    /// Every environment pushed to, the default first.
    public var environments: [PushEnvironment] { [environment] + otherEnvironments }

    /// Where a token of `token`'s environment is tried once more after `BadDeviceToken`: another
    /// environment pushed to, when the token's environment was the server's default guess.
    func fallbackEnvironment(of token: PushTokenRecord) -> PushEnvironment? {
        fallbackEnvironment(of: token.environment, source: token.environmentSource)
    }
    func fallbackEnvironment(of target: UpdateTarget) -> PushEnvironment? {
        fallbackEnvironment(of: target.environment, source: target.environmentSource)
    }
    private func fallbackEnvironment(of environment: PushEnvironment, source: PushEnvironmentSource) -> PushEnvironment? {
        guard source == .default else { return nil }
        return environments.first { $0 != environment }
    }
    /// A name unique to this dispatcher (leases are taken in its name).
    public var dispatcherID: String
    /// How long a claimed outbox row stays leased before another dispatcher may take it.
    public var lease: TimeInterval
    /// Rows claimed at once (512: one claim and one recording transaction per batch, so the
    /// commits of a backlog are few; sync rows still render one by one. 512 rather than 256 gave
    /// ~8 % more web pushes/s and outbox rows/s on PostgreSQL, `liveline-bench webpush|outbox`).
    public var batchSize: Int
    /// Tokens a whole fan-out reads per page once its render committed, each page sent as it is
    /// read, so the first requests leave long before the last token is read (docs/engine.md,
    /// "Fan-out for a sync"; the figures in docs/performance.md, "Fan-out").
    public var tokenPageSize = 2_000
    /// Backoff for pushes APNs asked to retry; after `maximumAttempts` a target is a dead letter.
    public var retryPolicy: RetryPolicy
    /// Least time between two pushes of one context to all its targets: changes within it go out
    /// together in the next push. 0 sends every change at once.
    public var minimumPushInterval: TimeInterval
    /// A change that is not material waits until this long after the context's last push, so
    /// quiet changes go out together, at priority 5 (`docs/engine.md`, "Budgets and priority").
    public var quietChangeDebounce: TimeInterval
    /// Priority-10 pushes per activity (one token, or the channel) per hour (`docs/engine.md`: default 12).
    public var priorityBudget: Int
    /// The same for a device that reported `frequent_pushes_enabled`.
    public var frequentPriorityBudget: Int
    /// Per activity type, a priority budget other than `priorityBudget`.
    public var priorityBudgetByType: [String: Int]
    /// `stale-date` = now + this on every update (moved forward each time), per activity type;
    /// `staleAfter` for other types, nil sends none.
    public var staleAfter: TimeInterval?
    public var staleAfterByType: [String: TimeInterval]
    /// Activity types whose updates carry no `stale-date` whatever `staleAfter` says.
    public var typesWithoutStaleDate: Set<String> = []
    /// Types whose end push is dismissed counted from the context's end (a ride's arrival), not
    /// from when the push is rendered.
    public var typesDismissedFromTheirEnd: Set<String> = []
    /// `dismissal-date` = now + this on end (never more than 4 hours), per activity type;
    /// `dismissAfter` for other types.
    public var dismissAfter: TimeInterval
    public var dismissAfterByType: [String: TimeInterval]
    /// Push-to-start: at most `startBudget` starts per device within `startBudgetWindow`.
    public var startBudget: Int
    public var startBudgetWindow: TimeInterval
    /// A scheduled start (`docs/api.md`, "Scheduled starts") that could not go out at its time —
    /// the server was down — is sent if it can go out within this after it, else recorded as
    /// missed.
    public var scheduledStartGrace: TimeInterval = 10 * 60
    /// How far ahead a start may be scheduled.
    public var scheduledStartHorizon: TimeInterval = 7 * 24 * 3600
    /// How far in the past a start's `at` may lie (clock skew between caller and server): such a
    /// start goes out at once; one further back is refused.
    public var scheduledStartSkew: TimeInterval = 60
    /// A start accepted by APNs whose device sent no `la-update` token within this marks the start
    /// token suspect.
    public var startAnswerTimeout: TimeInterval
    /// The engine ends a context this long before its 8-hour deadline.
    public var deadlineMargin: TimeInterval
    /// Activity types whose cards the engine renews before the 8-hour limit (`docs/engine.md`,
    /// "Renewal"; `LIVELINE_RENEW_TYPES`): a successor started by push-to-start on each device,
    /// the predecessor ended once APNs accepted it.
    public var renewingTypes: Set<String> = []
    /// How long before a renewing type's deadline its successors are started.
    public var renewalLead: TimeInterval = 30 * 60
    /// How often the dispatcher looks for deadlines and unanswered starts.
    public var lifecycleInterval: TimeInterval
    /// Storage policy of the channels the engine creates (most recent message stored by default).
    public var channelStoragePolicy: APNSChannelStoragePolicy
    /// A channel APNs lists that no row knows is deleted this long after the reconcile saw it,
    /// and only if no context has taken it meanwhile: a channel is created at APNs before its row
    /// is written, so one being created at that moment (here or by another instance) is listed
    /// before its row can be read.
    public var orphanChannelGrace: TimeInterval
    /// How long a start waits for a context's channel being created at APNs before it goes on
    /// without it (the devices get update tokens; the creation goes on in the background): a
    /// management call that hangs must not hold an HTTP worker.
    public var channelCreationWait: TimeInterval = 1
    /// A channel creation APNs has not answered within this counts as failed (a later answer
    /// still links the channel, or queues its deletion).
    public var channelCreationTimeout: TimeInterval = 15
    /// How long the dispatcher sleeps when nothing wakes it.
    public var idlePoll: Duration
    public var clock: @Sendable () -> Date
    /// Which widgets show a change and the least time between two widget pushes to one device
    /// (`docs/engine.md`, "Widget pushes").
    public var widgetPushes = WidgetPushes()

    public init(
        bundleID: String, environment: PushEnvironment = .sandbox, dispatcherID: String = "dispatcher-\(UUID().uuidString.prefix(8))",
        lease: TimeInterval = 30, batchSize: Int = 512, retryPolicy: RetryPolicy = RetryPolicy(), minimumPushInterval: TimeInterval = 1,
        quietChangeDebounce: TimeInterval = 30, priorityBudget: Int = 12, frequentPriorityBudget: Int = 36,
        priorityBudgetByType: [String: Int] = [:], staleAfter: TimeInterval? = 15 * 60,
        staleAfterByType: [String: TimeInterval] = [:], dismissAfter: TimeInterval = 15 * 60,
        dismissAfterByType: [String: TimeInterval] = [:], startBudget: Int = 8,
        startBudgetWindow: TimeInterval = 3600, startAnswerTimeout: TimeInterval = 5 * 60, deadlineMargin: TimeInterval = 10 * 60,
        lifecycleInterval: TimeInterval = 1, channelStoragePolicy: APNSChannelStoragePolicy = .mostRecentMessageStored,
        orphanChannelGrace: TimeInterval = 60, idlePoll: Duration = .milliseconds(250), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.dispatcherID = dispatcherID
        self.lease = lease
        self.batchSize = batchSize
        self.retryPolicy = retryPolicy
        self.minimumPushInterval = max(0, minimumPushInterval)
        self.quietChangeDebounce = max(0, quietChangeDebounce)
        self.priorityBudget = priorityBudget
        self.frequentPriorityBudget = frequentPriorityBudget
        self.priorityBudgetByType = priorityBudgetByType
        self.staleAfter = staleAfter
        self.staleAfterByType = staleAfterByType
        self.dismissAfter = min(dismissAfter, 4 * 3600)
        self.dismissAfterByType = dismissAfterByType.mapValues { min($0, 4 * 3600) }
        self.startBudget = startBudget
        self.startBudgetWindow = startBudgetWindow
        self.startAnswerTimeout = startAnswerTimeout
        self.deadlineMargin = deadlineMargin
        self.lifecycleInterval = lifecycleInterval
        self.channelStoragePolicy = channelStoragePolicy
        self.orphanChannelGrace = max(0, orphanChannelGrace)
        self.idlePoll = idlePoll
        self.clock = clock
    }

    /// The lifecycle a loaded contract file gives its type (`docs/contracts.md`, "Contract
    /// files"): below what the server's settings and its features say of the type, above the
    /// server's defaults. The engine sets it to its registry's.
    public var contractLifecycle: @Sendable (_ type: String) -> ContractLifecycle? = { _ in nil }

    /// Why a start cannot be scheduled for `at` (`docs/api.md`, "Scheduled starts"): further in
    /// the past than the clock-skew tolerance, or beyond the horizon; nil when it can.
    public func scheduledStartProblem(at: Date, now: Date) -> String? {
        if at < now.addingTimeInterval(-scheduledStartSkew) {
            return "at lies in the past (more than \(Int(scheduledStartSkew)) s before the server's time, \(now.formatted(.iso8601)))"
        }
        if at > now.addingTimeInterval(scheduledStartHorizon) {
            return "at lies more than \(Int(scheduledStartHorizon / 3600)) hours ahead (the furthest a start may be scheduled)"
        }
        return nil
    }

    /// Why a start of `context` cannot be scheduled for `at`: the engine ends the context
    /// ``deadlineMargin`` before its 8-hour deadline, and a start queued for later would never go
    /// out; nil when it can.
    public func scheduledStartProblem(at: Date, context: ContextRecord) -> String? {
        let end = context.deadlineAt.addingTimeInterval(-deadlineMargin)
        guard at > end else { return nil }
        return "at lies after \(end.formatted(.iso8601)), when \(context.key) is ended (\(Int(deadlineMargin / 60)) min before its "
            + "8-hour deadline): a start then would never go out"
    }

    /// How long after it is sent an update of `type` is stale; nil sends no `stale-date`.
    public func staleAfter(type: String) -> TimeInterval? {
        typesWithoutStaleDate.contains(type) ? nil : staleAfterByType[type] ?? contractLifecycle(type)?.staleAfter ?? staleAfter
    }

    /// Sets the stale time of `type`'s updates; nil: they carry no `stale-date`.
    public mutating func setStaleAfter(_ interval: TimeInterval?, type: String) {
        if let interval {
            staleAfterByType[type] = interval
            typesWithoutStaleDate.remove(type)
        } else {
            staleAfterByType[type] = nil
            typesWithoutStaleDate.insert(type)
        }
    }
    func dismissAfter(type: String) -> TimeInterval {
        dismissAfterByType[type] ?? contractLifecycle(type)?.dismissAfter.map { min($0, 4 * 3600) } ?? dismissAfter
    }
    /// When an ended card of `type` leaves the lock screen, counted from `endedAt`: a pull reports
    /// it from the context's end (for an app that ends the activity itself), the end push from
    /// when it is rendered.
    public func dismissalDate(type: String, endedAt: Date) -> Date { endedAt.addingTimeInterval(dismissAfter(type: type)) }
    /// Priority-10 pushes per activity and hour for `type` (with frequent updates allowed or not).
    public func priorityBudget(type: String, frequent: Bool) -> Int {
        let typeBudget = priorityBudgetByType[type] ?? contractLifecycle(type)?.priorityBudget
        return frequent ? max(frequentPriorityBudget, typeBudget ?? 0) : typeBudget ?? priorityBudget
    }
}
