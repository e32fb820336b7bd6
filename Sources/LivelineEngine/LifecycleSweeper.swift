import Foundation
import LivelineLog
import LivelineStore
import Synchronization

/// The engine's periodic work, run by the dispatcher's thread between batches (`docs/engine.md`,
/// "Lifecycle"): channels reconciled once after the start, cards of renewing types renewed before
/// their 8-hour limit ("Renewal"), contexts ended before their 8-hour deadline, and push-to-start
/// tokens whose start went unanswered marked suspect.
final class LifecycleSweeper: Sendable {
    let store: Store
    let configuration: EngineConfiguration
    let channels: ChannelManager
    let metrics: EngineMetrics
    let logger: Logger
    /// The features' periodic work, run after the engine's own.
    let tasks: [any PeriodicTask]
    /// Renewal of the cards of renewing types (`docs/engine.md`, "Renewal").
    let renewer: Renewer?
    private struct State {
        var lastRun: Date?
        var reconciled = false
        var reconciling = false
        var nextReconcile: Date?
        var reconcileBackoff: TimeInterval = 60
        /// The engine is stopping: no new reconcile thread starts.
        var stopped = false
    }
    private let state = Mutex(State())
    /// The channel reconcile running on its thread, if any (``waitForReconcile(timeout:)``).
    private let reconciles = DispatchGroup()

    init(
        store: Store, configuration: EngineConfiguration, channels: ChannelManager, metrics: EngineMetrics, logger: Logger = .discarding,
        tasks: [any PeriodicTask] = [], renewer: Renewer? = nil
    ) {
        self.tasks = tasks
        self.renewer = renewer
        self.store = store
        self.configuration = configuration
        self.channels = channels
        self.metrics = metrics
        self.logger = logger
    }

    /// Runs the sweep when `lifecycleInterval` has passed since the last one.
    func runIfDue() {
        let now = configuration.clock()
        let due = state.withLock { state -> Bool in
            if let last = state.lastRun, now.timeIntervalSince(last) < configuration.lifecycleInterval, now >= last { return false }
            state.lastRun = now
            return true
        }
        guard due else { return }
        sweep(now: now)
    }

    /// One sweep at `now`.
    func sweep(now: Date) {
        reconcileChannelsIfDue(now: now)
        renewer?.planDue(now: now)
        renewer?.endUnrenewed(now: now)
        endContextsNearTheirDeadline(now: now)
        markUnansweredStarts(now: now)
        for task in tasks { task.run(now: now) }
    }

    /// Reconciles the channels once after the start, off the sweep (the management API may be
    /// slow or unreachable; sending must not wait for it); a failed attempt is tried again after a
    /// backoff (1 minute, doubling up to 30).
    func reconcileChannelsIfDue(now: Date) {
        let go = state.withLock { state -> Bool in
            guard !state.stopped, !state.reconciled, !state.reconciling, state.nextReconcile.map({ now >= $0 }) ?? true else { return false }
            state.reconciling = true
            // Entered under the lock that `stop` takes: a stop either sees this reconcile or
            // keeps it from starting.
            reconciles.enter()
            return true
        }
        guard go else { return }
        // Holds the sweeper only while it reconciles (see ``waitForReconcile(timeout:)``). A queue
        // of its own: the management API may keep it waiting without holding a shared pool thread.
        DispatchQueue(label: "liveline.channel-reconcile").async { [weak self, reconciles] in
            self?.reconcile(now: now)
            reconciles.leave()
        }
    }

    /// Lets reconciles start again after a ``stop(timeout:)``.
    func start() { state.withLock { $0.stopped = false } }

    /// Keeps new reconciles from starting and waits up to `timeout` for one in progress; false
    /// when it still runs (calling it again waits again). The engine's stop calls it: no thread
    /// of the engine may outlive it.
    func stop(timeout: Duration) -> Bool {
        state.withLock { $0.stopped = true }
        return reconciles.wait(timeout: DispatchTime.after(timeout)) == .success
    }

    private func reconcile(now: Date) {
        let done = channels.reconcile(now: now)
        state.withLock { state in
            state.reconciling = false
            if done {
                state.reconciled = true
            } else {
                state.nextReconcile = configuration.clock().addingTimeInterval(state.reconcileBackoff)
                state.reconcileBackoff = min(state.reconcileBackoff * 2, 30 * 60)
            }
        }
    }

    /// Ends, with their final state, the active contexts whose deadline is within `deadlineMargin`:
    /// the phone ends an activity after 8 hours by itself, and a card ended by the phone
    /// would keep its last state (`docs/painpoints.md` §8).
    func endContextsNearTheirDeadline(now: Date) {
        let contexts: [ContextRecord]
        do {
            contexts = try store.contexts.contextsPastDeadline(now: now.addingTimeInterval(configuration.deadlineMargin))
        } catch {
            logger.record(
                EngineEvent(
                    EngineEvent.level(.warning, for: error), .sweepFailed, message: "looking for contexts near their deadline failed: \(error)"))
            return
        }
        let formatter = ISO8601DateFormatter()
        for context in contexts {
            let note =
                "ended by the engine \(Int(configuration.deadlineMargin / 60)) min before its 8-hour deadline (\(formatter.string(from: context.deadlineAt)))"
            do {
                let ended = try EngineDoor(store: store, clock: configuration.clock, widgets: configuration.widgetPushes).write(now: now) {
                    change -> ContextEndResult? in
                    // Held and read again: a new lifetime (a shopping trip starting again) may
                    // have committed since the list was read, on this instance or another.
                    _ = try change.lockContext(context.key)
                    guard let current = try change.context(context.key), current.state == .active,
                        current.deadlineAt <= now.addingTimeInterval(configuration.deadlineMargin)
                    else { return nil }
                    return try change.end(context.key, note: note)
                }
                // Ended by this sweep: another instance's sweep of the same second logs nothing.
                if let ended, !ended.alreadyEnded {
                    logger.record(EngineEvent(.info, .contextEndedAtDeadline, contextKey: context.key, rev: ended.rev, message: note))
                }
            } catch {
                logger.record(
                    EngineEvent(
                        EngineEvent.level(.warning, for: error), .sweepFailed, contextKey: context.key,
                        message: "ending the context before its deadline failed: \(error)"
                    ))
            }
        }
    }

    /// Starts APNs accepted but whose device sent no `la-update` token in time: the start and its
    /// push-to-start token are marked suspect (`docs/painpoints.md` §1–2), visible in the timeline
    /// and `/metrics`; nothing is started again by itself.
    func markUnansweredStarts(now: Date) {
        let starts: [StartRecord]
        do {
            starts = try store.starts.unanswered(sentBefore: now.addingTimeInterval(-configuration.startAnswerTimeout))
        } catch {
            logger.record(
                EngineEvent(EngineEvent.level(.warning, for: error), .sweepFailed, message: "looking for unanswered starts failed: \(error)"))
            return
        }
        for start in starts {
            let reason =
                "the start of \(start.contextKey) was accepted by APNs but no la-update token followed within \(Int(configuration.startAnswerTimeout)) s"
            do {
                // The start and its token together: a start marked alone would never be found again.
                let marked = try store.write { transaction in
                    guard try store.starts.markSuspect(id: start.id, now: now, in: transaction) else { return false }
                    try store.tokens.markSuspect(id: start.tokenID, reason: reason, now: now, in: transaction)
                    return true
                }
                guard marked else { continue }
                store.tokens.changes.bump()
                metrics.start(outcome: "suspect")
                logger.record(
                    EngineEvent(
                        .warning, .startSuspect, contextKey: start.contextKey, tokenID: start.tokenID, startID: start.id,
                        message: reason + ": the start and its push-to-start token are marked suspect"
                    ))
            } catch {
                logger.record(
                    EngineEvent(
                        EngineEvent.level(.warning, for: error), .sweepFailed, contextKey: start.contextKey, tokenID: start.tokenID,
                        startID: start.id,
                        message: "marking an unanswered start suspect failed: \(error)"
                    ))
            }
        }
    }
}
