import Foundation
import LivelineModel
import LivelinePush

/// How the engine sends.
public struct EngineConfiguration: Sendable {
    /// The app's bundle id (topics are derived from it).
    public var bundleID: String
    /// The APNs environment whose tokens are pushed to.
    public var environment: PushEnvironment
    /// A name unique to this dispatcher (leases are taken in its name).
    public var dispatcherID: String
    /// How long a claimed outbox row stays leased before another dispatcher may take it.
    public var lease: TimeInterval
    /// Rows claimed at once.
    public var batchSize: Int
    /// Backoff for pushes APNs asked to retry; after `maximumAttempts` a target is a dead letter.
    public var retryPolicy: RetryPolicy
    /// Least time between two pushes of one context to all its targets: changes within it go out
    /// together in the next push (`engine.md`: non-material changes "may be debounced"; spares
    /// the phone's budget). 0 sends every change at once.
    public var minimumPushInterval: TimeInterval
    /// `stale-date` = now + this on every update (`engine.md`, "Lifecycle"); nil sends none.
    public var staleAfter: TimeInterval?
    /// `dismissal-date` = now + this on end (never more than 4 hours).
    public var dismissAfter: TimeInterval
    /// How long the dispatcher sleeps when nothing wakes it.
    public var idlePoll: Duration
    public var clock: @Sendable () -> Date

    public init(
        bundleID: String, environment: PushEnvironment = .sandbox, dispatcherID: String = "dispatcher-\(UUID().uuidString.prefix(8))",
        lease: TimeInterval = 30, batchSize: Int = 64, retryPolicy: RetryPolicy = RetryPolicy(), minimumPushInterval: TimeInterval = 1, staleAfter: TimeInterval? = 15 * 60,
        dismissAfter: TimeInterval = 15 * 60, idlePoll: Duration = .milliseconds(250), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.dispatcherID = dispatcherID
        self.lease = lease
        self.batchSize = batchSize
        self.retryPolicy = retryPolicy
        self.minimumPushInterval = max(0, minimumPushInterval)
        self.staleAfter = staleAfter
        self.dismissAfter = min(dismissAfter, 4 * 3600)
        self.idlePoll = idlePoll
        self.clock = clock
    }
}
