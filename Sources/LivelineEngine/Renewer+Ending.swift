import Foundation
import LivelineLog
import LivelineModel
import LivelinePushWire
import LivelineStore

extension Renewer {
    /// APNs' verdict on a start, in the transaction that records it: when the start is a
    /// renewal's successor, accepted moves the context's deadline to the successor's 8 hours and
    /// queues the predecessor's end on that device (removed at once: one card per device);
    /// refused leaves the predecessor to end at its limit (``endUnrenewed(now:)``), the reason
    /// kept for the timeline. Returns what to log once committed. Without renewing types it reads
    /// nothing: a recording costs what it did before.
    func follow(startID: Int, accepted: Bool, reason: String?, at now: Date, in transaction: any SQLTransaction) throws -> EngineEvent? {
        guard !configuration.renewingTypes.isEmpty, let renewal = try store.renewals.starting(startID: startID, in: transaction) else {
            return nil
        }
        guard accepted else {
            let why = "the successor's start was refused (\(reason ?? "no reason")): this device's card ends at its 8-hour limit"
            try store.renewals.settle(id: renewal.id, from: .starting, to: .refused, reason: why, now: now, in: transaction)
            return EngineEvent(.warning, .renewalRefused, contextKey: renewal.contextKey, startID: startID, message: why)
        }
        try store.renewals.extendDeadline(contextKey: renewal.contextKey, to: now.addingTimeInterval(8 * 3600), in: transaction)
        try store.renewals.settle(id: renewal.id, from: .starting, to: .renewed, reason: nil, now: now, in: transaction)
        // The successor's app may have registered its update token before this verdict was
        // recorded (the start reached the phone as APNs accepted it): that answered the start.
        let cards = try store.renewals.updateTokens(contextKey: renewal.contextKey, in: transaction)
        if cards.contains(where: { $0.householdID == renewal.householdID && $0.deviceID == renewal.deviceID && $0.id != renewal.oldTokenID }) {
            try store.starts.answered(
                contextKey: renewal.contextKey, householdID: renewal.householdID, deviceID: renewal.deviceID, now: now, in: transaction)
        }
        let note = "end of the renewed card on device \(renewal.deviceID): its successor's start was accepted"
        try enqueueEnd(of: renewal, dismissAtOnce: true, note: note, now: now, in: transaction)
        return EngineEvent(.info, .renewalAccepted, contextKey: renewal.contextKey, startID: startID, message: note)
    }

    /// The device registered a new update token for the context while its renewal was starting:
    /// the successor's app answered, so its start reached the phone — accepted, whether or not
    /// APNs' answer was recorded (a dispatcher that died after sending would otherwise send the
    /// successor's start again: a second card). The old card's own token registered again is no
    /// answer (the caller passes only a new token).
    func successorAnswered(
        contextKey: String, householdID: HouseholdID, deviceID: String, at now: Date, in transaction: any SQLTransaction
    ) throws -> EngineEvent? {
        guard !configuration.renewingTypes.isEmpty,
            let renewal = try store.renewals.starting(contextKey: contextKey, householdID: householdID, deviceID: deviceID, in: transaction),
            let startID = renewal.startID
        else { return nil }
        return try follow(startID: startID, accepted: true, reason: nil, at: now, in: transaction)
    }

    /// Ends, at its limit, each card that got no successor (refused, or the start still
    /// unanswered) while its context goes on; a context that was not renewed anywhere is ended as
    /// a whole by the deadline sweep instead, so nothing is sent twice.
    func endUnrenewed(now: Date) {
        guard !configuration.renewingTypes.isEmpty else { return }
        do {
            for renewal in try store.renewals.unrenewed(before: now.addingTimeInterval(configuration.deadlineMargin)) {
                try EngineDoor(store: store, clock: configuration.clock, widgets: configuration.widgetPushes).write(now: now) { change in
                    try endAtTheLimit(renewal, change: change)
                }
            }
        } catch {
            logger.record(
                EngineEvent(EngineEvent.level(.warning, for: error), .sweepFailed, message: "ending cards without a successor failed: \(error)"))
        }
    }

    private func endAtTheLimit(_ renewal: RenewalRecord, change: EngineWrite) throws {
        _ = try change.lockContext(renewal.contextKey)
        let context = try change.context(renewal.contextKey)
        let goesOn = context.map { $0.state == .active && $0.deadlineAt > renewal.deadlineAt } ?? false
        let why = renewal.reason ?? "the successor's start was not accepted in time"
        let note = goesOn ? "end at the 8-hour limit on device \(renewal.deviceID): \(why)" : "ended with its context at the limit"
        guard try store.renewals.settle(id: renewal.id, from: renewal.status, to: .ended, reason: note, now: change.now, in: change.sql)
        else { return }
        guard goesOn else { return }
        try enqueueEnd(of: renewal, dismissAtOnce: false, note: note, now: change.now, in: change.sql)
        logger.record(EngineEvent(.info, .renewalFellBack, contextKey: renewal.contextKey, message: note))
    }

    /// Queues the `end` of the predecessor's activity on one device: the current state, marked
    /// ended, dismissed at once (a successor shows it) or after the type's window.
    private func enqueueEnd(of renewal: RenewalRecord, dismissAtOnce: Bool, note: String, now: Date, in transaction: any SQLTransaction) throws {
        guard let context = try store.contexts.context(key: renewal.contextKey, in: transaction) else { return }
        let renderer = starter.renderer
        var state = try renderer.contentState(of: context, in: transaction)
        if case .object(var fields) = state,
            renderer.registry.contract(named: context.activityType)?.schema.contentState.contains(where: { $0.key == "ended" }) == true
        {
            fields["ended"] = .bool(true)
            state = .object(fields)
        }
        let timestamp = try store.contexts.nextPushTimestamp(key: context.key, now: now, in: transaction)
        guard
            case .object(var aps) = renderer.updateAPS(
                type: context.activityType, state: state, timestamp: timestamp, ended: true, alert: nil, relevanceScore: nil, now: now)
        else { return }
        if dismissAtOnce { aps["dismissal-date"] = .int(Int(now.timeIntervalSince1970)) }
        let message = OutboxMessage.activityEnd(
            tokenID: renewal.oldTokenID,
            push: OutboxMessage.Push(pushType: .liveActivity, priority: .immediate, expiration: nil, collapseID: nil), note: note)
        try store.outbox.enqueueMessage(
            idempotencyKey: "renewal-end:\(renewal.id)", contextKey: context.key, target: .token(renewal.oldTokenID), headers: message.json,
            payload: Array(JSONValue.object(["aps": .object(aps)]).compactJSON), now: now, in: transaction)
    }
}
