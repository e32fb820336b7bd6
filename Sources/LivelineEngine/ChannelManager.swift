import Foundation
import LivelineLog
import LivelineModel
import LivelinePushWire
import LivelineScheduling
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
    /// Where APNs's answers to creations are counted (`/metrics`).
    let metrics: EngineMetrics
    /// The creations in flight in this process, by environment and context: concurrent starts
    /// of a context share one (and so create one channel).
    private let creations = Mutex<[String: ChannelCreation]>([:])
    /// Recordings of APNs's answers in progress (``stop(timeout:)`` waits for them), and whether
    /// the engine stopped (later answers are no longer recorded).
    private let recordings = DispatchGroup()
    private let stopped = Mutex(false)
    /// A creation outlasted the wait and APNs has not answered one since: the management API is
    /// slow or hangs, and starts go on without waiting for it at all (one wait per episode).
    private let managementSlow = Mutex(false)
    /// The environments reconciled since the engine started.
    private let reconciled = Mutex<Set<PushEnvironment>>([])

    init(
        store: Store, sender: any PushSender, otherSenders: [PushEnvironment: any PushSender] = [:], configuration: EngineConfiguration,
        metrics: EngineMetrics = EngineMetrics(), logger: Logger = .discarding
    ) {
        self.store = store
        self.metrics = metrics
        senders =
            [(configuration.environment, sender)]
            + configuration.otherEnvironments.compactMap { environment in otherSenders[environment].map { (environment, $0) } }
        self.configuration = configuration
        self.logger = logger
    }

    /// The context's channel in `environment`, created now when it has none. Without one (APNs
    /// refused, e.g. the app's channel quota is reached) the reason comes back and the context
    /// keeps going by its tokens there (`docs/engine.md`: fall back to token fan-out).
    ///
    /// The caller (an HTTP worker) waits at most `channelCreationWait` for APNs: when the
    /// management API is slower, the reason comes back and the creation goes on in the
    /// background; once APNs answers, the channel is linked to the context and later syncs
    /// broadcast to it (the devices started meanwhile follow their update tokens). After a wait
    /// ran out, callers do not wait at all until APNs answers a creation again.
    func ensureChannel(contextKey: String, environment: PushEnvironment, now: Date) throws -> (channelID: String?, fallback: String?) {
        guard let sender = senders.first(where: { $0.environment == environment })?.sender else {
            return (nil, "no APNs connection for the \(environment.rawValue) environment")
        }
        guard try store.contexts.context(key: contextKey) != nil else {
            throw StoreError(.notFound, "there is no context \(contextKey)")
        }
        if let channelID = try store.channels.contextChannel(key: contextKey, environment: environment) { return (channelID, nil) }
        let name = "\(environment.rawValue):\(contextKey)"
        let (creation, isNew) = creations.withLock { creations -> (ChannelCreation, Bool) in
            if let creation = creations[name] { return (creation, false) }
            let creation = ChannelCreation()
            creations[name] = creation
            return (creation, true)
        }
        if isNew {
            // Another creation may have linked one between the read above and taking its place.
            if let channelID = try? store.channels.contextChannel(key: contextKey, environment: environment) {
                finish(creation, name: name, ChannelCreation.Outcome(channelID: channelID))
            } else {
                create(creation, name: name, contextKey: contextKey, environment: environment, sender: sender, now: now)
            }
        }
        let slow = managementSlow.withLock { $0 }
        if let outcome = creation.wait(timeout: slow ? 0 : configuration.channelCreationWait) { return (outcome.channelID, outcome.fallback) }
        managementSlow.withLock { $0 = true }
        let fallback =
            "no channel in \(environment.rawValue) yet (APNs has not answered its creation "
            + (slow ? "and is slow to answer creations" : "within \(Self.seconds(configuration.channelCreationWait)) s")
            + "; it goes on in the background); this start's devices get update tokens"
        logger.record(EngineEvent(.warning, .channelFallback, contextKey: contextKey, message: fallback))
        return (nil, fallback)
    }

    /// Asks APNs for a channel without waiting for the answer: the answer is recorded on another
    /// thread (``record(_:contextKey:environment:now:)``), or the creation counts as failed after
    /// `channelCreationTimeout`.
    private func create(
        _ creation: ChannelCreation, name: String, contextKey: String, environment: PushEnvironment, sender: any PushSender, now: Date
    ) {
        let timeout = configuration.channelCreationTimeout
        Scheduler.after(timeout) { [self] in
            guard !creation.isSettled else { return }
            let fallback =
                "no channel in \(environment.rawValue) (APNs did not answer in time: \(Self.seconds(timeout)) s); updates go to each device's token"
            logger.record(EngineEvent(.warning, .channelFallback, contextKey: contextKey, message: fallback))
            finish(creation, name: name, ChannelCreation.Outcome(fallback: fallback))
        }
        sender.createChannel(bundleID: configuration.bundleID, storagePolicy: configuration.channelStoragePolicy) { [self] result in
            managementSlow.withLock { $0 = false }
            metrics.channelOperation(.create, environment: environment, status: result.status, reason: result.reason?.rawValue)
            let go = stopped.withLock { stopped -> Bool in
                // Entered under the lock `stop` takes: a stop either waits for this recording or keeps it from starting.
                if !stopped { recordings.enter() }
                return !stopped
            }
            guard go else {
                logger.record(
                    EngineEvent(
                        .info, .channelFallback, contextKey: contextKey, channelID: result.channelID, status: result.status,
                        message: "APNs answered a channel creation after the engine stopped: not recorded (the next reconcile deletes an orphan)"
                    ))
                finish(creation, name: name, ChannelCreation.Outcome(fallback: "the engine stopped"))
                return
            }
            // Not on the APNs client's I/O thread: recording writes to the database.
            DispatchQueue.global().async { [self] in
                defer { recordings.leave() }
                let outcome: ChannelCreation.Outcome
                do {
                    outcome = try record(result, contextKey: contextKey, environment: environment, now: now)
                } catch {
                    let fallback =
                        "no channel in \(environment.rawValue) (recording APNs's answer failed: \(error)); updates go to each device's token"
                    logger.record(
                        EngineEvent(
                            EngineEvent.level(.warning, for: error), .channelFallback, contextKey: contextKey, channelID: result.channelID,
                            status: result.status, message: fallback))
                    outcome = ChannelCreation.Outcome(fallback: fallback)
                }
                finish(creation, name: name, outcome)
            }
        }
    }

    /// The creation is no longer in flight; its waiters get `outcome` (unless it timed out before).
    private func finish(_ creation: ChannelCreation, name: String, _ outcome: ChannelCreation.Outcome) {
        creations.withLock { creations in
            if creations[name] === creation { creations[name] = nil }
        }
        creation.settle(outcome)
    }

    /// Records APNs's answer to a creation: the channel's row, linked to the context — unless the
    /// context ended meanwhile or another instance linked one of its own (this one's deletion is
    /// queued then).
    private func record(_ result: APNSResult, contextKey: String, environment: PushEnvironment, now: Date) throws -> ChannelCreation.Outcome {
        guard result.status == 201, let channelID = result.channelID else {
            let fallback = "no channel in \(environment.rawValue) (APNs answered \(result.summary)); updates go to each device's token"
            logger.record(
                EngineEvent(
                    .warning, .channelFallback, contextKey: contextKey, apnsID: result.requestID, status: result.status,
                    reason: result.reason?.rawValue, message: fallback
                ))
            return ChannelCreation.Outcome(fallback: fallback)
        }
        let linked = try store.write { transaction -> String? in
            // Held first: an end committing meanwhile is seen below, or sees this link when its
            // push is rendered (which retires the channel).
            _ = try store.contexts.lock(key: contextKey, in: transaction)
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
        return linked.map { ChannelCreation.Outcome(channelID: $0) }
            ?? ChannelCreation.Outcome(fallback: "the context ended while its channel was created")
    }

    /// Keeps APNs's later answers to creations from being recorded and waits up to `timeout` for
    /// the recordings in progress; false when one still runs. The engine's stop calls it.
    func stop(timeout: Duration) -> Bool {
        stopped.withLock { $0 = true }
        return recordings.wait(timeout: DispatchTime.after(timeout)) == .success
    }

    /// Lets answers be recorded again after a ``stop(timeout:)``.
    func start() { stopped.withLock { $0 = false } }

    /// `1`, `0.5`: a duration in seconds for a message.
    static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? String(Int(interval)) : String(format: "%.1f", interval)
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
