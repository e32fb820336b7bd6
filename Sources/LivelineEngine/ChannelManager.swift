import Foundation
import LivelineLog
import LivelineModel
import LivelinePush
import LivelineStore
import Synchronization

/// Broadcast channels (`docs/engine.md`, "Broadcast channels"; `docs/painpoints.md` §14): created through
/// the channel management API of an APNs environment when a context first needs one there (a
/// context with devices in both environments has one in each), recorded as rows, deleted after
/// the context's end (by the dispatcher), and reconciled against each environment's
/// `all-channels` when the engine starts: channels APNs has and no row knows are orphans and get
/// deleted; rows whose channel APNs no longer has are marked deleted. Each step is an event in
/// the engine's log.
final class ChannelManager: Sendable {
    let store: Store
    /// Each environment's APNs, the default one's first.
    let senders: [(environment: PushEnvironment, sender: any PushSender)]
    let configuration: EngineConfiguration
    let logger: Logger
    /// Creation is serialised per context and environment in this process, so concurrent starts
    /// create one channel.
    private let creating = Mutex<[String: NSLock]>([:])
    /// The environments reconciled since the engine started.
    private let reconciled = Mutex<Set<PushEnvironment>>([])

    init(
        store: Store, sender: any PushSender, otherSenders: [PushEnvironment: any PushSender] = [:], configuration: EngineConfiguration,
        logger: Logger = .discarding
    ) {
        self.store = store
        senders =
            [(configuration.environment, sender)]
            + configuration.otherEnvironments.compactMap { environment in otherSenders[environment].map { (environment, $0) } }
        self.configuration = configuration
        self.logger = logger
    }

    /// The context's channel in `environment`, created now when it has none. Without one (APNs
    /// refused, e.g. the app's channel quota is reached) the reason comes back and the context
    /// keeps going by its tokens there (`docs/engine.md`: fall back to token fan-out).
    func ensureChannel(contextKey: String, environment: PushEnvironment, now: Date) throws -> (channelID: String?, fallback: String?) {
        guard let sender = senders.first(where: { $0.environment == environment })?.sender else {
            return (nil, "no APNs connection for the \(environment.rawValue) environment")
        }
        let lock = creating.withLock { locks in
            let name = "\(environment.rawValue):\(contextKey)"
            if let lock = locks[name] { return lock }
            let lock = NSLock()
            locks[name] = lock
            return lock
        }
        lock.lock()
        defer { lock.unlock() }
        guard try store.contexts.context(key: contextKey) != nil else {
            throw StoreError(.notFound, "there is no context \(contextKey)")
        }
        if let channelID = try store.channels.contextChannel(key: contextKey, environment: environment) { return (channelID, nil) }
        let result = Self.wait { done in
            sender.createChannel(bundleID: configuration.bundleID, storagePolicy: configuration.channelStoragePolicy, completion: done)
        }
        guard let result, result.status == 201, let channelID = result.channelID else {
            let why = result.map { "APNs answered \($0.summary)" } ?? "APNs did not answer in time"
            let fallback = "no channel in \(environment.rawValue) (\(why)); updates go to each device's token"
            logger.record(
                EngineEvent(
                    .warning, .channelFallback, contextKey: contextKey, apnsID: result?.requestID, status: result?.status,
                    reason: result?.reason?.rawValue, message: fallback
                ))
            return (nil, fallback)
        }
        let linked = try store.write { transaction -> String? in
            try store.channels.insert(
                channelID: channelID, purpose: "context", ownerKind: .context, owner: contextKey,
                storagePolicy: configuration.channelStoragePolicy.rawValue, environment: environment.rawValue,
                now: now, in: transaction
            )
            func deleteAgain(_ note: String) throws {
                try store.outbox.enqueueMessage(
                    idempotencyKey: "channel-delete:\(channelID)", contextKey: contextKey, target: .channel(channelID),
                    headers: OutboxMessage.channelDelete(channelID: channelID, environment: environment, note: note).json,
                    payload: [], now: now, in: transaction
                )
            }
            // Ended meanwhile: the new channel is of no use, delete it again.
            guard try store.contexts.context(key: contextKey, in: transaction)?.state == .active else {
                try deleteAgain("delete the channel of \(contextKey), ended while it was created")
                return nil
            }
            // Another instance linked one of its own meanwhile: that one is used, ours deleted.
            let linked = try store.channels.linkUnlessLinked(contextKey: contextKey, environment: environment, channelID: channelID, in: transaction)
            if linked != channelID { try deleteAgain("delete a second channel of \(contextKey): another instance's is used") }
            return linked
        }
        logger.record(
            EngineEvent(
                .info, .channelCreated, contextKey: contextKey, apnsID: result.requestID, channelID: channelID, status: result.status,
                message: linked == channelID
                    ? "a broadcast channel for the context in \(environment.rawValue)"
                    : linked == nil
                        ? "created for the context, which ended meanwhile: its deletion is queued"
                        : "created for the context, which another instance gave one meanwhile: this one's deletion is queued"
            ))
        return linked.map { ($0, nil) } ?? (nil, "the context ended while its channel was created")
    }

    /// Compares each environment's channels of the app with the rows: marks vanished rows
    /// deleted, and in the default environment deletes orphans. In the other environment
    /// channels no row knows are left alone: another server of the same app (a production
    /// server beside a staging one) may own them. Returns false while an environment's APNs
    /// could not be asked (only those are tried again later).
    @discardableResult
    func reconcile(now: Date) -> Bool {
        for (environment, sender) in senders where !reconciled.withLock({ $0.contains(environment) }) {
            if reconcile(environment, through: sender, now: now) { reconciled.withLock { _ = $0.insert(environment) } }
        }
        return reconciled.withLock { $0.count } == senders.count
    }

    private func reconcile(_ environment: PushEnvironment, through sender: any PushSender, now: Date) -> Bool {
        let listed = Self.wait { (done: @escaping @Sendable ((channels: [String]?, result: APNSResult)) -> Void) in
            sender.listChannels(bundleID: configuration.bundleID) { channels, result in done((channels, result)) }
        }
        guard let channels = listed?.channels else {
            let why = listed.map { "APNs answered \($0.result.summary)" } ?? "APNs did not answer in time"
            logger.record(
                EngineEvent(
                    .warning, .channelReconcileFailed, apnsID: listed?.result.requestID, status: listed?.result.status,
                    reason: listed?.result.reason?.rawValue,
                    message: "could not list the app's channels in \(environment.rawValue) (\(why)); tried again later"
                ))
            return false
        }
        let known = Set(channels)
        do {
            // Rows made after the list was asked for may be missing from it: they are left alone.
            // Compared at the stored precision (whole milliseconds, rounded down): a row made in
            // the same millisecond as `now` reads back as that millisecond, not as older.
            let cutoff = SQLValue.date(milliseconds: SQLValue.milliseconds(now))
            let rows = try store.channels.allActive().filter { $0.environment == environment.rawValue && $0.createdAt < cutoff }
            let recorded = Set(rows.map(\.channelID))
            let vanished = rows.filter { !known.contains($0.channelID) }
            for row in vanished {
                // The row and its context's link to it, together.
                try store.write { transaction in
                    try store.channels.markDeleted(channelID: row.channelID, now: now, in: transaction)
                    try store.channels.unlink(channelID: row.channelID, in: transaction)
                }
                logger.record(
                    EngineEvent(
                        .info, .channelDeleted, contextKey: row.ownerKind == .context ? row.owner : nil, channelID: row.channelID,
                        message: "APNs no longer has the channel: marked deleted"
                    ))
            }
            let unknown = known.subtracting(recorded).sorted()
            let orphans = environment == configuration.environment ? unknown : []
            if !orphans.isEmpty {
                try store.write { transaction in
                    for channelID in orphans where try store.channels.channel(id: channelID, in: transaction)?.isActive != true {
                        try store.outbox.enqueueMessage(
                            idempotencyKey: "channel-delete:\(channelID):\(Int(now.timeIntervalSince1970 * 1000))", contextKey: nil,
                            target: .channel(channelID),
                            headers: OutboxMessage.channelDelete(
                                channelID: channelID, environment: environment, note: "delete an orphan channel (no row knows it)"
                            ).json,
                            payload: [], now: now, dueAt: now.addingTimeInterval(configuration.orphanChannelGrace), in: transaction
                        )
                    }
                }
            }
            logger.record(
                EngineEvent(
                    vanished.isEmpty && orphans.isEmpty ? .debug : .info, .channelsReconciled,
                    message:
                        "\(channels.count) channel(s) at APNs (\(environment.rawValue)), \(rows.count) recorded: \(vanished.count) vanished (marked deleted), "
                        + (environment == configuration.environment
                            ? "\(orphans.count) orphan(s) (deletion queued)"
                            : "\(unknown.count) no row knows (left alone: the other environment's may be another server's)")
                ))
            return true
        } catch {
            logger.record(
                EngineEvent(
                    EngineEvent.level(.warning, for: error), .channelReconcileFailed,
                    message: "reconciling the channels in \(environment.rawValue) failed: \(error); tried again later"))
            return false
        }
    }

    /// Runs a callback-style call and waits for its answer, at most `timeout`.
    static func wait<T: Sendable>(timeout: TimeInterval = 15, _ call: (@escaping @Sendable (T) -> Void) -> Void) -> T? {
        let semaphore = DispatchSemaphore(value: 0)
        let box = Mutex<T?>(nil)
        call { value in
            box.withLock { $0 = value }
            semaphore.signal()
        }
        guard semaphore.wait(timeout: .now() + timeout) == .success else { return nil }
        return box.withLock { $0 }
    }
}
