import Foundation
import LivelineLog
import LivelineStore

extension Dispatcher {
    /// What applying a plan changed beyond its records.
    struct Applied: Sendable {
        /// This dispatcher still held the row's lease, so the row's change was made.
        var held: Bool
        /// The tokens marked invalid (a token registered again after APNs' timestamp is not).
        var invalidated: Set<PushTokenID>
        /// The tokens moved to the other environment (a default guess it takes instead).
        var moved: Set<PushTokenID> = []
        /// What a renewal's successor start led to (`docs/engine.md`, "Renewal"), logged once committed.
        var renewal: EngineEvent?
    }

    /// Applies `plan` in one write transaction: every record and change of it, or — when anything
    /// fails — none of it. When the row's lease ran out before (another dispatcher holds it now),
    /// only APNs' answers are recorded, nothing that steers the row or its context. Then tells the
    /// token registry's readers.
    func apply(_ plan: DispatchPlan) throws -> Applied {
        let applied = try store.write { transaction in try apply(plan, in: transaction) }
        if !plan.invalidTokens.isEmpty { store.tokens.changes.bump() }
        return applied
    }

    /// ``apply(_:)`` in the caller's transaction.
    private func apply(_ plan: DispatchPlan, in transaction: any SQLTransaction) throws -> Applied {
        // The context's row before the outbox row, as a claim taking back an expired lease
        // holds them (two transactions never wait for each other the other way round).
        try lockContexts(of: [plan], in: transaction)
        // The row's own change first: whether this dispatcher still holds the row decides
        // what else is written.
        let held = try change(plan.row, of: plan.rowID, at: plan.at, in: transaction)
        try store.deliveries.record(plan.deliveries, in: transaction)
        return try applyRest(of: plan, held: held, in: transaction)
    }

    /// What follows the row's own change (`held`: it was made) and its delivery records.
    private func applyRest(of plan: DispatchPlan, held: Bool, in transaction: any SQLTransaction) throws -> Applied {
        // What APNs answered is a fact whoever holds the row now: every answer's delivery
        // record (written by the caller), the tokens it called dead, a start's verdict, channels
        // it deleted.
        var invalidated: Set<PushTokenID> = []
        var moved: Set<PushTokenID> = []
        for token in plan.invalidTokens {
            if let environment = token.moveTo {
                if try store.tokens.moveToEnvironment(id: token.tokenID, environment, in: transaction) {
                    moved.insert(token.tokenID)
                    continue
                }
                // Moved there already (another answer of this batch, or another instance's): the
                // refusal was its old environment's, not a verdict on the token.
                if try store.tokens.learnedEnvironment(of: token.tokenID, in: transaction) == environment { continue }
            }
            if try store.tokens.markInvalid(
                id: token.tokenID, reason: token.reason, now: plan.at, registeredBefore: token.registeredBefore, in: transaction)
            {
                invalidated.insert(token.tokenID)
            }
        }
        var renewal: EngineEvent?
        if let start = plan.start, start.settlement == .missed, held {
            try store.starts.markMissed(id: start.startID, reason: start.reason ?? "missed", now: plan.at, in: transaction)
        } else if let start = plan.start, start.settlement == .skipped, held {
            try store.starts.skip(id: start.startID, reason: start.reason ?? "skipped", now: plan.at, in: transaction)
        } else if let start = plan.start, start.settlement == .finished, held || start.answered {
            try store.starts.finish(id: start.startID, accepted: start.accepted, reason: start.reason, now: plan.at, in: transaction)
            renewal = try renewer?.follow(startID: start.startID, accepted: start.accepted, reason: start.reason, at: plan.at, in: transaction)
        }
        for channelID in plan.deletedChannels { try store.channels.markDeleted(channelID: channelID, now: plan.at, in: transaction) }
        // The hints a push carried that was accepted: those of its revision or older, and the
        // alert it carried whatever revision the hints have moved to (recorded even after the
        // lease ran out: the push did go).
        if let hints = plan.hintsSent {
            try store.contexts.clearHints(key: hints.contextKey, sentRev: hints.rev, sentAlert: hints.alert, in: transaction)
        }
        // What steers the context from here on (the state last sent, retries of targets, dead
        // targets, retiring its channels, giving up on a start) only while the row is still this
        // dispatcher's: one whose lease ran out must not overwrite what the newer attempt
        // (another dispatcher's, which now holds the row or superseded it) decided.
        guard held else { return Applied(held: false, invalidated: invalidated, moved: moved, renewal: renewal) }
        for retry in plan.targetRetries {
            try store.outbox.enqueueSync(contextKey: retry.contextKey, target: retry.target, now: plan.at, dueAt: retry.dueAt, in: transaction)
        }
        for dead in plan.deadTargets {
            try store.outbox.recordDeadTarget(
                contextKey: dead.contextKey, target: dead.target, reason: dead.reason, now: plan.at, in: transaction)
        }
        if let sent = plan.sentState {
            try store.contexts.recordSent(key: sent.contextKey, contentState: sent.contentState, now: sent.renderedAt, in: transaction)
        }
        // Only while the context is still ended with this channel: one reopened meanwhile may
        // have taken it for its new card.
        for retired in plan.retiredChannels {
            guard try store.contexts.context(key: retired.contextKey, in: transaction)?.state == .ended,
                try store.channels.linkedContext(channelID: retired.channelID, in: transaction)?.key == retired.contextKey
            else { continue }
            try store.channels.unlink(channelID: retired.channelID, in: transaction)
            try store.outbox.enqueueMessage(
                idempotencyKey: "channel-delete:\(retired.channelID)", contextKey: retired.contextKey, target: .channel(retired.channelID),
                headers: OutboxMessage.channelDelete(channelID: retired.channelID, note: "delete the channel of ended \(retired.contextKey)")
                    .json,
                payload: [], now: plan.at, in: transaction
            )
        }
        return Applied(held: true, invalidated: invalidated, moved: moved, renewal: renewal)
    }

    /// The row's own change; false when this dispatcher no longer holds its lease.
    private func change(_ change: DispatchPlan.RowChange, of id: Int, at now: Date, in transaction: any SQLTransaction) throws -> Bool {
        let owner = configuration.dispatcherID
        return switch change {
        case .complete: try store.outbox.complete(id: id, owner: owner, now: now, in: transaction)
        case .retry(let at, let error): try store.outbox.retry(id: id, owner: owner, at: at, error: error, now: now, in: transaction)
        case .postpone(let until, let reason):
            try store.outbox.postpone(id: id, owner: owner, until: until, reason: reason, now: now, in: transaction)
        case .deadLetter(let reason): try store.outbox.deadLetter(id: id, owner: owner, reason: reason, now: now, in: transaction)
        case .keep(let until): try renewLease(of: id, until: until, in: transaction)
        }
    }

    /// Renews the row's lease, checked against the lease as it is now, not when the page was
    /// answered: a renewal kept after a failed recording is written later, and the lease may have
    /// run out (and been taken) meanwhile; it then holds a full lease from now.
    private func renewLease(of id: Int, until: Date, in transaction: any SQLTransaction) throws -> Bool {
        let now = configuration.clock()
        return try store.outbox.renewLease(
            id: id, owner: configuration.dispatcherID, until: max(until, now + configuration.lease), now: now, in: transaction)
    }

    /// Applies `plan` and logs what it did. A failure keeps the plan for another try (a busy or
    /// failing database) or moves the row on without its records (any other failure: it would
    /// fail again); either way it is logged. False when the plan was kept.
    @discardableResult
    func record(_ plan: DispatchPlan, failures: Int = 0) -> Bool {
        do {
            settled(plan, try apply(plan))
            return true
        } catch {
            return recordingFailed(plan, error: error, failures: failures + 1)
        }
    }

    /// Applies the plans of one batch in one write transaction (one commit for the batch: the
    /// outbox's throughput on a database whose commits wait for the disk). The batch's context
    /// rows are held first, in key order, so two instances' batches never wait for each other in
    /// a circle. When the database is busy or failing, the whole batch waits (kept, oldest first,
    /// like a single plan); any other failure is isolated: each plan is applied alone
    /// (``record(_:failures:)``), so it costs only its own row. Either is logged.
    func record(batch plans: [DispatchPlan]) {
        guard plans.count > 1, pending.withLock({ $0.isEmpty }) else {
            for plan in plans { record(plan) }
            return
        }
        let ordered = plans.enumerated().sorted { ($0.element.contextKey ?? "", $0.offset) < ($1.element.contextKey ?? "", $1.offset) }
            .map(\.element)
        let applied: [Applied]
        do {
            applied = try store.write { transaction in
                try lockContexts(of: ordered, in: transaction)
                // The same steps as ``apply(_:)``, each for the whole batch at once where it can
                // be: the rows completed by one statement, every delivery record by a few.
                var held: [Int: Bool] = [:]
                let completing = ordered.filter { $0.row == .complete }
                for (at, plans) in Dictionary(grouping: completing, by: \.at) {
                    let ids = plans.map(\.rowID)
                    let done = try store.outbox.complete(ids: ids, owner: configuration.dispatcherID, now: at, in: transaction)
                    for id in ids { held[id] = done.contains(id) }
                }
                for plan in ordered where plan.row != .complete {
                    held[plan.rowID] = try change(plan.row, of: plan.rowID, at: plan.at, in: transaction)
                }
                try store.deliveries.record(ordered.flatMap(\.deliveries), in: transaction)
                return try ordered.map { try applyRest(of: $0, held: held[$0.rowID] ?? false, in: transaction) }
            }
        } catch  where Self.isTransient(error) {
            let backoff = 0.1
            let notBefore = configuration.clock().addingTimeInterval(backoff)
            pending.withLock { pending in
                pending.append(
                    contentsOf: ordered.map { PendingPlan(plan: $0, failures: 1, notBefore: notBefore, waitsForSpace: Self.isStorageFull(error)) })
            }
            logger.record(
                EngineEvent(
                    EngineEvent.level(.warning, for: error), .recordingFailed,
                    message: "recording a batch of \(ordered.count) rows failed: \(error); nothing of it was written, it is recorded again "
                        + "in \(backoff) s and nothing new is claimed before"
                ))
            return
        } catch {
            logger.record(
                EngineEvent(
                    .warning, .recordingFailed,
                    message: "recording a batch of \(ordered.count) rows failed: \(error); nothing of it was written, each row is recorded alone"
                ))
            for plan in ordered { record(plan) }
            return
        }
        if ordered.contains(where: { !$0.invalidTokens.isEmpty }) { store.tokens.changes.bump() }
        for (plan, applied) in zip(ordered, applied) { settled(plan, applied) }
    }

    /// Holds the context rows of `plans` before anything else of their recording
    /// (``ContextRepository/lock(keys:in:)``): a change committing meanwhile waits, and every
    /// transaction that holds a context and an outbox row took the context first.
    private func lockContexts(of plans: [DispatchPlan], in transaction: any SQLTransaction) throws {
        try store.contexts.lock(keys: Set(plans.compactMap(\.contextKey)).sorted(), in: transaction)
    }

    /// Applies the plans kept after a failed recording, oldest first. Returns how many were
    /// applied, or nil while one still waits (its backoff, or the database): nothing new is
    /// claimed then.
    func recordPending() -> Int? {
        var applied = 0
        while true {
            let now = configuration.clock()
            // A write committed since the disk was full: space was freed, no need to wait out the backoff.
            let spaceFreed = !store.database.isStorageFull
            let next = pending.withLock { pending -> PendingPlan?? in
                guard let first = pending.first else { return .some(nil) }
                guard now >= first.notBefore || (first.waitsForSpace && spaceFreed) else { return nil }
                return pending.removeFirst()
            }
            guard let next else { return nil }  // the first is still backing off
            guard let next else { return applied }  // none left
            guard record(next.plan, failures: next.failures) else { return nil }  // kept again, at the front
            applied += 1
        }
    }

    /// The thread is ending: one more try for what is kept, whatever its backoff. What still
    /// cannot be recorded stays kept (a later start tries again) and is logged: if the process
    /// ends first, its rows come back after their lease.
    func recordPendingBeforeStopping() {
        let kept = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for (index, entry) in kept.enumerated() where !record(entry.plan, failures: entry.failures) {
            // Kept again, at the front: the rest wait behind it.
            let waiting = pending.withLock { pending in
                pending.append(contentsOf: kept[(index + 1)...])
                return pending
            }
            for entry in waiting {
                logger.record(
                    EngineEvent(
                        .error, .recordingUnfinished, contextKey: entry.plan.contextKey, outboxID: entry.plan.rowID,
                        message: "the dispatcher stopped before the answers to this row could be recorded; if the process ends now, "
                            + "the row comes back after its lease, and what APNs accepted may be sent again"
                    ))
            }
            return
        }
    }

    /// A plan's transaction failed. A busy or failing database: the plan waits, with a backoff,
    /// at the front of the queue. Anything else would fail again: the row's change is applied
    /// alone (it moves on as planned) and every answer goes to the log, the only record left.
    func recordingFailed(_ plan: DispatchPlan, error: any Error, failures: Int) -> Bool {
        let now = configuration.clock()
        guard Self.isTransient(error) else { return abandon(plan, error: error) }
        let backoff = min(30, 0.1 * pow(2, Double(failures - 1)))
        // Oldest first: a plan tried again goes back to the front, a newly failed one behind the others.
        let waiting = PendingPlan(
            plan: plan, failures: failures, notBefore: now.addingTimeInterval(backoff), waitsForSpace: Self.isStorageFull(error))
        pending.withLock { failures > 1 ? $0.insert(waiting, at: 0) : $0.append(waiting) }
        logger.record(
            EngineEvent(
                EngineEvent.level(.warning, for: error), .recordingFailed, contextKey: plan.contextKey, outboxID: plan.rowID,
                apnsID: plan.deliveries.first?.apnsID,
                status: plan.deliveries.first?.status,
                message: "recording \(plan.deliveries.count) answer(s) failed (\(failures) time(s)): \(error); nothing of it was written, "
                    + "it is recorded again in \(backoff) s and nothing new is claimed before"
            ))
        return false
    }

    /// Gives up on `plan`'s records: each answer is logged, the row's change is applied alone.
    /// False when that was kept for another try.
    private func abandon(_ plan: DispatchPlan, error: any Error) -> Bool {
        for attempt in plan.deliveries {
            logger.record(
                EngineEvent(
                    .error, .recordingAbandoned, contextKey: plan.contextKey, outboxID: plan.rowID, apnsID: attempt.apnsID,
                    tokenID: attempt.targetKind == .token ? Int(attempt.target).map { PushTokenID($0) } : nil,
                    channelID: attempt.targetKind == .channel ? attempt.target : nil,
                    rev: attempt.rev, status: attempt.status, reason: attempt.reason,
                    message: "this answer could not be recorded (\(error)): \(attempt.note ?? "")"
                ))
        }
        if plan.deliveries.isEmpty {
            logger.record(
                EngineEvent(
                    .error, .recordingAbandoned, contextKey: plan.contextKey, outboxID: plan.rowID,
                    message: "what follows from this row could not be recorded (\(error))"
                ))
        }
        let rowOnly = plan.rowOnly
        guard rowOnly != plan else { return true }  // the row's change alone failed: the row comes back after its lease
        return record(rowOnly)
    }

    /// The plan is applied: its events, the row's (or that its lease was lost), the tokens'
    /// invalidations, and the counters of `/metrics`.
    func settled(_ plan: DispatchPlan, _ applied: Applied) {
        // What the row's holder decides was not written when the lease was lost: not logged either.
        let decisions: Set<EngineEvent.Name> = [.pushRetried, .deadLetter, .channelRetired]
        for event in plan.events where applied.held || !decisions.contains(event.name) { logger.record(event) }
        if applied.held {
            if let event = plan.rowEvent { logger.record(event) }
            if case .deadLetter = plan.row { metrics.deadLetter() }
        } else {
            logger.record(
                EngineEvent(
                    .warning, .leaseLost, contextKey: plan.contextKey, outboxID: plan.rowID,
                    message: "the row's lease ran out before its answers were recorded: they are, and the row is another dispatcher's now"
                ))
        }
        for _ in plan.deadTargets where applied.held { metrics.deadLetter() }
        if let renewal = applied.renewal { logger.record(renewal) }
        if let start = plan.start, start.counted, applied.held || start.answered { metrics.start(outcome: start.accepted ? "sent" : "failed") }
        if let start = plan.start, start.settlement == .missed, applied.held { metrics.start(outcome: "missed") }
        for token in plan.invalidTokens {
            guard let environment = token.moveTo, applied.moved.contains(token.tokenID) else { continue }
            logger.record(
                EngineEvent(
                    .info, .tokenMoved, contextKey: plan.contextKey, outboxID: plan.rowID, apnsID: token.apnsID, tokenID: token.tokenID,
                    status: token.status, reason: token.reason,
                    message: "the token was registered without an environment and its default one does not know it: moved to "
                        + "\(environment.rawValue) and sent again there"
                ))
        }
        for token in plan.invalidTokens where token.moveTo == nil || applied.invalidated.contains(token.tokenID) {
            let invalidated = applied.invalidated.contains(token.tokenID)
            logger.record(
                EngineEvent(
                    invalidated ? .info : .debug, invalidated ? .tokenInvalidated : .tokenKept, contextKey: plan.contextKey, outboxID: plan.rowID,
                    apnsID: token.apnsID, tokenID: token.tokenID, status: token.status, reason: token.reason,
                    message: invalidated
                        ? token.message ?? "APNs no longer knows the token: marked invalid, never pushed again"
                        : "the push service called the token dead, but it was registered again since (or had ended already): kept as it is"
                ))
        }
    }
}
