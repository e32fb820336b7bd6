import Foundation
import LivelineLog
import LivelineModel
import LivelinePushWire
import LivelineStore

/// Decides what APNs' answers to one row's pushes mean, as a ``DispatchPlan``: a pure function
/// of the row, what it sent, the answers and the time — no database, no network — so every rule
/// below is a unit test.
///
/// Rules (Related APNs documentation: "Handling notification responses from APNs",
/// https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns):
/// - Every answer is one delivery record: `apns-id`, status, reason, priority, latency.
/// - A dead token (410 `Unregistered`/`ExpiredToken`, `BadDeviceToken`, `DeviceTokenNotForTopic`)
///   is marked invalid and never retried; after a 410 only when APNs' `timestamp` is later than
///   the token's last registration.
/// - 5xx, 429, an expired provider token and no answer are retried with exponential backoff and
///   jitter (``RetryPolicy``): a row of one recipient (a message, a one-target sync) as a whole
///   until its attempts run out (then a dead letter with the last answer); a target of a
///   fan-out as a one-target sync row of its own. A whole fan-out whose tokens could not all be
///   read (``PreparedRow/unfinished``) goes again as a whole, the same way, instead.
/// - Any other refusal is permanent: a dead letter (for a fan-out target, a dead sync row of its
///   own beside the row, which completes). A channel deletion APNs answers 404 (or
///   `BadChannelId`) has nothing left to delete: the channel is marked deleted.
/// - An accepted sync clears the hints it carried and, for a whole fan-out, records the state
///   sent; an end that reached the context's channel (or never will) retires the channel.
/// - A push-to-start is finished by APNs' verdict: accepted, refused, or given up on.
struct DispatchPlanner: Sendable {
    let retryPolicy: RetryPolicy

    // MARK: Answered rows

    /// The plan for `prepared` once APNs answered: `outcomes` in the order of its sends, at `now`.
    func plan(
        _ prepared: PreparedRow, outcomes: [SendOutcome], at now: Date, random: inout some RandomNumberGenerator
    ) -> DispatchPlan {
        let row = prepared.row
        var plan = DispatchPlan(rowID: row.id, contextKey: row.contextKey, at: now)
        plan.deliveries = outcomes.map { Self.attempt($0, row: row, rev: prepared.rev, at: now) }
        // A row of one recipient follows its one answer; a fan-out follows each target on its own.
        let oneRecipient = row.target != nil || row.kind == .message
        // A whole fan-out that did not reach every token goes again as a whole: that reaches the
        // targets APNs asked to retry as well, so none gets a retry of its own besides.
        let retriesTargets = prepared.unfinished == nil
        var verdict = RowVerdict()
        for outcome in outcomes {
            follow(
                outcome, of: prepared, oneRecipient: oneRecipient, retriesTargets: retriesTargets, at: now, random: &random, into: &plan,
                verdict: &verdict)
        }
        if let sync = prepared.sync {
            let delivered = prepared.unfinished == nil && outcomes.contains { $0.result.outcome == .delivered }
            followDelivery(sync, delivered: delivered, into: &plan)
            retireChannels(sync, outcomes: outcomes, into: &plan)
        }
        if let startID = prepared.message?.startID, let outcome = outcomes.first {
            followStart(startID, outcome: outcome, row: row, into: &plan)
        }
        if verdict.retry {
            retry(prepared, last: outcomes.first, at: now, random: &random, into: &plan)
        } else if let unfinished = prepared.unfinished {
            retry(prepared, last: nil, why: unfinished, at: now, random: &random, into: &plan)
        } else if let deadReason = verdict.deadReason {
            plan.row = .deadLetter(reason: deadReason)
            plan.rowEvent = Self.event(.warning, .deadLetter, outcomes.first, row: row, rev: prepared.rev, message: deadReason)
        }
        return plan
    }

    /// What the answers of a row of one recipient say of the row itself.
    private struct RowVerdict {
        /// Sent again, with backoff.
        var retry = false
        /// Refused for good: a dead letter, for this reason.
        var deadReason: String?
    }

    /// Follows one answer: a deleted channel, a dead token (or one moved to the other
    /// environment), a retry of the row or of the target alone, a target or row refused for good.
    private func follow(
        _ outcome: SendOutcome, of prepared: PreparedRow, oneRecipient: Bool, retriesTargets: Bool,
        environmentsAhead: Set<PushEnvironment> = [], at now: Date, random: inout some RandomNumberGenerator, into plan: inout DispatchPlan,
        verdict: inout RowVerdict
    ) {
        let row = prepared.row
        switch outcome.result.outcome {
        case .delivered:
            if case .deleteChannel(let channelID) = outcome.send.request {
                plan.deletedChannels.append(channelID)
                plan.events.append(Self.event(.info, .channelDeleted, outcome, row: row, message: "APNs deleted the channel"))
            }
        case .tokenDead(let since):
            guard case .token(let tokenID) = outcome.send.target else { break }
            // A token of the default environment by guess that this environment does not know:
            // tried once in the other one before it is called dead.
            let moveTo = outcome.result.reason == .badDeviceToken ? outcome.send.fallbackEnvironment : nil
            plan.invalidTokens.append(
                DispatchPlan.TokenInvalidation(
                    tokenID: tokenID, reason: outcome.result.reason?.rawValue ?? "status \(outcome.result.status)", registeredBefore: since,
                    apnsID: Self.apnsID(outcome.result), status: outcome.result.status, moveTo: moveTo
                ))
            if let moveTo {
                // Sent again there once it moved (`tokenMoved`, logged when the move is made).
                if oneRecipient {
                    verdict.retry = true
                } else if retriesTargets, !environmentsAhead.contains(moveTo), let contextKey = row.contextKey {
                    plan.targetRetries.append(DispatchPlan.TargetRetry(contextKey: contextKey, target: outcome.send.target, dueAt: now))
                }
            }
        case .retry, .rotateToken:
            if oneRecipient {
                verdict.retry = true
            } else if retriesTargets, let contextKey = row.contextKey {
                let dueAt = now.addingTimeInterval(seconds(retryPolicy.delay(beforeRetry: 1, using: &random)))
                plan.targetRetries.append(DispatchPlan.TargetRetry(contextKey: contextKey, target: outcome.send.target, dueAt: dueAt))
                plan.events.append(
                    Self.event(
                        .debug, .pushRetried, outcome, row: row, rev: prepared.rev,
                        message: "\(outcome.send.service) answered \(outcome.result.summary): this target is sent again at \(Self.time(dueAt))"
                    ))
            }
        case .permanent:
            if case .deleteChannel(let channelID) = outcome.send.request, Self.channelIsGone(outcome.result) {
                plan.deletedChannels.append(channelID)  // not there: nothing left to delete
                plan.events.append(
                    Self.event(
                        .info, .channelDeleted, outcome, row: row, message: "APNs no longer has the channel (\(outcome.result.summary))"
                    ))
                return
            }
            let reason = "\(outcome.send.service) answered \(outcome.result.summary) (\(outcome.send.note)); not retried"
            if oneRecipient {
                verdict.deadReason = reason
            } else if let contextKey = row.contextKey {
                plan.deadTargets.append(DispatchPlan.DeadTarget(contextKey: contextKey, target: outcome.send.target, reason: reason))
                plan.events.append(Self.event(.warning, .deadLetter, outcome, row: row, rev: prepared.rev, message: reason))
            }
        }
    }

    // MARK: A whole fan-out sent a page at a time

    /// The plan for one page of a whole fan-out sent a page at a time (``Dispatcher``'s
    /// streaming): its answers as ``plan(_:outcomes:at:random:)`` takes them — a delivery record
    /// each, dead tokens, a retry or dead letter of a single target, the end's channel — with the
    /// row kept, leased until `leaseUntil`. What concerns the whole row waits for
    /// ``planEnd(_:delivered:stopped:at:random:)``. `retriesTargets`: false once the fan-out
    /// stopped (it goes again as a whole); a target retried by an earlier page is sent again also
    /// when a later page stops it (at least once). A token moved to one of `environmentsAhead`
    /// (whose tokens are not being read yet) is sent with them, not retried on its own.
    func planPage(
        _ prepared: PreparedRow, outcomes: [SendOutcome], leaseUntil: Date, retriesTargets: Bool, environmentsAhead: Set<PushEnvironment>,
        at now: Date, random: inout some RandomNumberGenerator
    ) -> DispatchPlan {
        let row = prepared.row
        var plan = DispatchPlan(rowID: row.id, contextKey: row.contextKey, at: now, row: .keep(leaseUntil: leaseUntil))
        plan.deliveries = outcomes.map { Self.attempt($0, row: row, rev: prepared.rev, at: now) }
        var verdict = RowVerdict()
        for outcome in outcomes {
            follow(
                outcome, of: prepared, oneRecipient: false, retriesTargets: retriesTargets, environmentsAhead: environmentsAhead, at: now,
                random: &random, into: &plan, verdict: &verdict)
        }
        if let sync = prepared.sync { retireChannels(sync, outcomes: outcomes, into: &plan) }
        return plan
    }

    /// The end of a whole fan-out sent a page at a time, once its pages were recorded: done, with
    /// the hints it carried cleared and its state recorded when any token accepted it
    /// (`delivered`); or, when it stopped before its last token (``PreparedRow/unfinished``), sent
    /// again as a whole: after a backoff, an attempt counted — or at once and without one when it
    /// stopped because the dispatcher is stopping (`stopped`: not a failure of the push).
    func planEnd(
        _ prepared: PreparedRow, delivered: Bool, stopped: Bool, at now: Date, random: inout some RandomNumberGenerator
    ) -> DispatchPlan {
        var plan = DispatchPlan(rowID: prepared.row.id, contextKey: prepared.row.contextKey, at: now)
        if let sync = prepared.sync { followDelivery(sync, delivered: delivered && prepared.unfinished == nil, into: &plan) }
        if let unfinished = prepared.unfinished {
            if stopped {
                plan.row = .postpone(until: now, reason: unfinished)
            } else {
                retry(prepared, last: nil, why: unfinished, at: now, random: &random, into: &plan)
            }
        }
        return plan
    }

    // MARK: Following the answers

    /// A sync some token accepted (`delivered`; false for a fan-out that did not reach all its
    /// tokens, which goes again as it went) clears the hints it carried and records the state a
    /// whole fan-out sent.
    private func followDelivery(_ sync: RenderedSync, delivered: Bool, into plan: inout DispatchPlan) {
        if sync.carriesHints, delivered {
            plan.hintsSent = DispatchPlan.HintsSent(contextKey: sync.contextKey, rev: sync.rev, alert: sync.sentAlert)
        }
        if let state = sync.sentState, delivered {
            plan.sentState = DispatchPlan.SentState(contextKey: sync.contextKey, contentState: state, renderedAt: sync.renderedAt)
        }
    }

    /// An end whose channel push settled (accepted, or refused for good) retires the channel.
    /// After a retryable answer the channel stays, for the retry of the end.
    private func retireChannels(_ sync: RenderedSync, outcomes: [SendOutcome], into plan: inout DispatchPlan) {
        for channelID in sync.channelsToRetire {
            let answer = outcomes.first { $0.send.target == .channel(channelID) }?.result.outcome
            let endSettled =
                switch answer {
                case .delivered?, .permanent?, .tokenDead?: true
                case .retry?, .rotateToken?, nil: false
                }
            guard endSettled else { continue }
            plan.retiredChannels.append(DispatchPlan.ChannelRetirement(contextKey: sync.contextKey, channelID: channelID))
            plan.events.append(
                EngineEvent(
                    .debug, .channelRetired, contextKey: sync.contextKey, outboxID: plan.rowID, channelID: channelID,
                    message: "the end reached the context's channel: detached, its deletion queued"
                ))
        }
    }

    /// APNs' verdict on a start: accepted, or refused for good. A retryable answer decides nothing yet.
    private func followStart(_ startID: Int, outcome: SendOutcome, row: OutboxRow, into plan: inout DispatchPlan) {
        switch outcome.result.outcome {
        case .delivered:
            plan.start = DispatchPlan.StartFinish(startID: startID, accepted: true, reason: nil, counted: true, answered: true)
            plan.events.append(Self.event(.debug, .startSent, outcome, row: row, startID: startID, message: "APNs accepted the push-to-start"))
        case .tokenDead where outcome.result.reason == .badDeviceToken && outcome.send.fallbackEnvironment != nil:
            break  // tried in the other environment first
        case .tokenDead, .permanent:
            plan.start = DispatchPlan.StartFinish(
                startID: startID, accepted: false, reason: outcome.result.summary, counted: true, answered: true)
            plan.events.append(
                Self.event(
                    .warning, .startFailed, outcome, row: row, startID: startID, message: "APNs refused the push-to-start: \(outcome.result.summary)"
                ))
        case .retry, .rotateToken:
            break
        }
    }

    /// A row of one recipient APNs asked to retry, or a whole fan-out that stopped before its
    /// last token (`why`): again after a backoff, or a dead letter once its sends reach the
    /// policy's maximum (a start then fails).
    private func retry(
        _ prepared: PreparedRow, last: SendOutcome?, why: String? = nil, at now: Date, random: inout some RandomNumberGenerator,
        into plan: inout DispatchPlan
    ) {
        let row = prepared.row
        // Sends so far: this row's, and for a one-target sync row the fan-out send before it.
        let sends = row.attempts + 1 + (row.kind == .sync && row.target != nil ? 1 : 0)
        let answer = why ?? last?.result.summary ?? "no answer"
        guard sends < retryPolicy.maximumAttempts else {
            let reason = "gave up after \(sends) attempts: \(answer)"
            if let startID = prepared.message?.startID {
                plan.start = DispatchPlan.StartFinish(startID: startID, accepted: false, reason: "gave up after \(sends) attempts", counted: true)
                plan.events.append(Self.event(.warning, .startFailed, last, row: row, startID: startID, message: "the push-to-start " + reason))
            }
            // An end the context's channel never took: the channel goes anyway (nothing else would
            // ever delete it; APNs allows an app 10,000).
            if case .channel(let channelID)? = row.target, let sync = prepared.sync, sync.channelsToRetire.contains(channelID) {
                plan.retiredChannels.append(DispatchPlan.ChannelRetirement(contextKey: sync.contextKey, channelID: channelID))
                plan.events.append(
                    EngineEvent(
                        .info, .channelRetired, contextKey: row.contextKey, outboxID: row.id, channelID: channelID,
                        message: "the end never reached the context's channel (\(reason)): detached, its deletion queued"
                    ))
            }
            plan.row = .deadLetter(reason: reason)
            plan.rowEvent = Self.event(.warning, .deadLetter, last, row: row, rev: prepared.rev, message: reason)
            return
        }
        // Not before the server asked (a push service's `Retry-After`).
        let backoff = seconds(retryPolicy.delay(beforeRetry: sends, using: &random))
        let at = now.addingTimeInterval(max(backoff, last?.result.retryAfter ?? 0))
        // A start sent without an answer (the wait ran out, the connection was lost) may have
        // reached APNs: marked, it waits one lease for its device's answer before it goes out again
        // (``Dispatcher``'s preparation of a start).
        let unanswered = prepared.message?.startID != nil && last?.result.status == 0
        plan.row = .retry(at: at, error: unanswered ? OutboxRow.mayHaveBeenSentNote + answer : answer)
        let cause = why ?? "\(last?.send.service ?? "APNs") answered \(answer)"
        plan.rowEvent = Self.event(
            why == nil ? .debug : .warning, .pushRetried, last, row: row, rev: prepared.rev,
            message: "\(cause): sent again at \(Self.time(at)) (send \(sends + 1))"
                + (unanswered ? ", after one more lease for its device's answer" : "")
        )
    }

    // MARK: Rows that send nothing now

    /// The plan for `row`, which sends nothing now because of `reason`, at `now`.
    func plan(_ row: OutboxRow, unsent reason: Preparation.Reason, at now: Date, random: inout some RandomNumberGenerator) -> DispatchPlan {
        var plan = DispatchPlan(rowID: row.id, contextKey: row.contextKey, at: now)
        switch reason {
        case .nothingToSend:
            break
        case .postponed(let until, let why):
            plan.row = .postpone(until: until, reason: why)
        case .databaseUnavailable(let error, let storageFull):
            let at = now.addingTimeInterval(seconds(retryPolicy.delay(beforeRetry: row.attempts + 1, using: &random)))
            plan.row = .retry(at: at, error: row.lastError(keepingMark: error))
            plan.rowEvent = EngineEvent(
                storageFull ? .debug : .warning, .databaseBusy, contextKey: row.contextKey, outboxID: row.id,
                message: "\(error); the row is tried again at \(Self.time(at))"
            )
        case .unsendable(let why):
            plan.row = .deadLetter(reason: why)
            plan.rowEvent = EngineEvent(.warning, .deadLetter, contextKey: row.contextKey, outboxID: row.id, message: why)
        case .channelInUse(let channelID, let contextKey):
            plan.events.append(
                EngineEvent(
                    .info, .channelKept, contextKey: contextKey, outboxID: row.id, channelID: channelID,
                    message: "not deleted: the channel was being created for the context when it was listed as an orphan"
                ))
        case .startAfterTheEnd, .startMissed, .startShownAlready, .startAnswered, .startSettled:
            planStart(row, unsent: reason, into: &plan)
        case .subscriptionUnusable(let tokenID, let why):
            plan.invalidTokens.append(
                DispatchPlan.TokenInvalidation(
                    tokenID: tokenID, reason: why, registeredBefore: nil, apnsID: nil, status: 0,
                    message: "the browser's subscription has a key no push can be encrypted for: marked invalid, never pushed again"))
            plan.row = .deadLetter(reason: why)
            plan.rowEvent = EngineEvent(.warning, .deadLetter, contextKey: row.contextKey, outboxID: row.id, tokenID: tokenID, message: why)
        case .tokenInactive(let startID, let note):
            let why = "the token is no longer active: \(note)"
            if let startID {
                plan.start = DispatchPlan.StartFinish(
                    startID: startID, accepted: false, reason: "the push-to-start token is no longer active", counted: false
                )
                plan.events.append(
                    EngineEvent(
                        .warning, .startFailed, contextKey: row.contextKey, outboxID: row.id, tokenID: row.target?.tokenID, startID: startID,
                        message: "the push-to-start token is no longer active"
                    ))
            }
            plan.row = .deadLetter(reason: why)
            plan.rowEvent = EngineEvent(
                .warning, .deadLetter, contextKey: row.contextKey, outboxID: row.id, tokenID: row.target?.tokenID, message: why)
        }
        return plan
    }

    /// The part of ``plan(_:unsent:at:random:)`` for a push-to-start that is not sent: how its
    /// start is settled, and what is logged.
    private func planStart(_ row: OutboxRow, unsent reason: Preparation.Reason, into plan: inout DispatchPlan) {
        switch reason {
        case .startAfterTheEnd(let startID):
            let why = "the context ended before the start went out"
            plan.start = DispatchPlan.StartFinish(startID: startID, accepted: false, reason: why, counted: false)
            plan.events.append(EngineEvent(.info, .startCancelled, contextKey: row.contextKey, outboxID: row.id, startID: startID, message: why))
        case .startMissed(let startID, let why):
            plan.start = DispatchPlan.StartFinish(startID: startID, accepted: false, reason: why, counted: false, settlement: .missed)
            plan.events.append(
                EngineEvent(
                    .warning, .startMissed, contextKey: row.contextKey, outboxID: row.id, tokenID: row.target?.tokenID, startID: startID,
                    message: why))
        case .startShownAlready(let startID):
            let why = "skipped: when it was due, the device showed the card already (its app started one meanwhile)"
            plan.start = DispatchPlan.StartFinish(startID: startID, accepted: false, reason: why, counted: false, settlement: .skipped)
            plan.events.append(
                EngineEvent(
                    .info, .startCancelled, contextKey: row.contextKey, outboxID: row.id, tokenID: row.target?.tokenID, startID: startID, message: why
                ))
        case .startAnswered(let startID):
            let why = "the device answered the start already (its card is on the lock screen): not sent again"
            plan.start = DispatchPlan.StartFinish(startID: startID, accepted: true, reason: nil, counted: false)
            plan.events.append(
                EngineEvent(
                    .info, .startAnswered, contextKey: row.contextKey, outboxID: row.id, tokenID: row.target?.tokenID, startID: startID, message: why)
            )
        case .startSettled(let startID, let status):
            let why =
                status == .sent
                ? "APNs accepted the start already (an answer recorded late): not sent again"
                : "the start was settled already (\(status.rawValue)): not sent"
            plan.events.append(
                EngineEvent(
                    .info, status == .sent ? .startAnswered : .startCancelled, contextKey: row.contextKey, outboxID: row.id,
                    tokenID: row.target?.tokenID, startID: startID, message: why))
        default:
            break
        }
    }

    // MARK: Pieces

    /// The delivery record of one answer.
    static func attempt(_ outcome: SendOutcome, row: OutboxRow, rev: Int?, at date: Date) -> DeliveryAttempt {
        let (kind, target): (DeliveryTargetKind, String) =
            switch outcome.send.target {
            case .token(let id): (.token, String(id.rawValue))
            case .channel(let id): (.channel, id)
            }
        let latency = outcome.result.latency.components
        return DeliveryAttempt(
            id: nil, outboxID: row.id, contextKey: row.contextKey, rev: rev, targetKind: kind, target: target,
            apnsID: apnsID(outcome.result), status: outcome.result.status,
            reason: outcome.result.reason?.rawValue ?? outcome.result.transportError, priority: outcome.send.priority,
            latencyMilliseconds: Double(latency.seconds) * 1000 + Double(latency.attoseconds) / 1e15, attemptedAt: date,
            note: outcome.send.note, environment: outcome.send.environment
        )
    }

    /// A channel deletion answered this way has nothing left to delete.
    static func channelIsGone(_ result: APNSResult) -> Bool {
        result.status == 404 || ["BadChannelId", "ChannelNotRegistered"].contains(result.reason?.rawValue ?? "")
    }

    static func apnsID(_ result: APNSResult) -> String? { result.apnsID ?? result.requestID }

    /// An event about `row` and, when given, one answer: its `apns-id`, status, reason and target.
    static func event(
        _ level: LogLevel, _ name: EngineEvent.Name, _ outcome: SendOutcome?, row: OutboxRow, rev: Int? = nil, startID: Int? = nil,
        message: String
    ) -> EngineEvent {
        var event = EngineEvent(level, name, contextKey: row.contextKey, outboxID: row.id, startID: startID, rev: rev, message: message)
        guard let outcome else { return event }
        event.apnsID = apnsID(outcome.result)
        event.status = outcome.result.status
        event.reason = outcome.result.reason?.rawValue
        switch outcome.send.target {
        case .token(let id): event.tokenID = id
        case .channel(let id): event.channelID = id
        }
        return event
    }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    private func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
