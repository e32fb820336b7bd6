import Foundation
import LivelineLog
import LivelineModel
import LivelinePushWire
import LivelineStore

/// Renews the cards of types in ``EngineConfiguration/renewingTypes`` before their 8-hour limit
/// (`docs/engine.md`, "Renewal"). An activity runs at most 8 hours, then stays up to 4 more as
/// ended (Apple, "Displaying live data with Live Activities",
/// https://developer.apple.com/documentation/activitykit/displaying-live-data-with-live-activities).
///
/// ``LifecycleSweeper`` runs ``planDue(now:)`` and ``endUnrenewed(now:)``; the dispatcher's
/// recording runs ``follow(startID:accepted:reason:at:in:)`` with APNs' verdict on a successor's
/// start, in the transaction that records it. Everything a step decides is written in one
/// transaction with the outbox rows it sends, so a crash repeats nothing and loses nothing.
struct Renewer: Sendable {
    let store: Store
    let starter: Starter
    let configuration: EngineConfiguration
    let logger: Logger

    /// The title of a successor's start alert (a push-to-start needs one).
    static let alert = LiveActivityAlert(title: "Continues")

    /// Plans the renewal of every context whose deadline is within ``EngineConfiguration/renewalLead``
    /// (and not yet within the deadline margin, where the sweep ends it instead).
    func planDue(now: Date) {
        guard !configuration.renewingTypes.isEmpty else { return }
        let contexts: [ContextRecord]
        do {
            contexts = try store.renewals.due(
                types: configuration.renewingTypes, before: now.addingTimeInterval(configuration.renewalLead),
                after: now.addingTimeInterval(configuration.deadlineMargin))
        } catch {
            logger.record(EngineEvent(EngineEvent.level(.warning, for: error), .sweepFailed, message: "looking for cards to renew failed: \(error)"))
            return
        }
        for context in contexts {
            do {
                if let planned = try plan(context, now: now) {
                    logger.record(EngineEvent(.info, .renewalPlanned, contextKey: context.key, rev: planned.rev, message: planned.summary))
                }
            } catch {
                logger.record(
                    EngineEvent(
                        EngineEvent.level(.warning, for: error), .sweepFailed, contextKey: context.key, message: "planning a renewal failed: \(error)"
                    ))
            }
        }
    }

    /// What one plan did.
    struct Planned {
        var rev: Int
        var starting = 0
        var refused = 0
        var summary: String { "renewal before the 8-hour limit: \(starting) successor start(s) queued, \(refused) card(s) end at the limit" }
    }

    /// In one transaction: the context held and read again, the plan marked (once per deadline),
    /// the next revision, and per device a successor start or the reason there is none.
    private func plan(_ listed: ContextRecord, now: Date) throws -> Planned? {
        try EngineDoor(store: store, clock: configuration.clock, widgets: configuration.widgetPushes).write(now: now) { change -> Planned? in
            _ = try change.lockContext(listed.key)
            guard let current = try change.context(listed.key), current.state == .active, current.deadlineAt == listed.deadlineAt,
                try store.renewals.markPlanned(contextKey: listed.key, deadline: listed.deadlineAt, now: now, in: change.sql)
            else { return nil }
            let rev = try change.recordChange(listed.key, note: "renewal: successors start before the 8-hour limit", widgetsSeeIt: false)
            guard let context = try change.context(listed.key) else { return nil }
            var planned = Planned(rev: rev)
            var seen = Set<String>()
            for card in try store.renewals.updateTokens(contextKey: context.key, in: change.sql) {
                let report = try store.reports.activity(
                    contextKey: context.key, householdID: card.householdID, deviceID: card.deviceID, activityID: card.activityID, in: change.sql)
                guard !Self.isOver(card, reported: report), seen.insert("\(card.householdID):\(card.deviceID)").inserted else { continue }
                if try renew(card, of: context, now: now, in: change.sql) { planned.starting += 1 } else { planned.refused += 1 }
            }
            return planned
        }
    }

    /// Whether the app's report says the card needs no successor (`docs/engine.md`, "App-reported
    /// activities"): it is transient (`ActivityStyle.transient` ends when the person leaves the
    /// app), or it ended. The report is the card's own by its activity id; without one, the
    /// device's report without an id, and `ended` only if newer than the card's token.
    static func isOver(_ card: PushTokenRecord, reported: ActivityReport?) -> Bool {
        guard let reported else { return false }
        if reported.style == .transient { return true }
        return reported.state == .ended && (card.activityID != nil || reported.reportedAt >= card.firstRegisteredAt)
    }

    /// One device's successor: its push-to-start queued (true), or the reason it has none recorded.
    private func renew(_ card: PushTokenRecord, of context: ContextRecord, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        func refuse(_ why: String) throws -> Bool {
            try store.renewals.insert(
                contextKey: context.key, householdID: card.householdID, deviceID: card.deviceID, oldTokenID: card.id, startID: nil,
                deadline: context.deadlineAt, reason: "\(why): this device's card ends at its 8-hour limit", now: now, in: transaction)
            return false
        }
        let startTokens = try store.tokens.startTokens(
            attributesType: context.activityType, environment: card.environment, userIDs: [card.userID], deviceIDs: nil, in: transaction)
        guard let startToken = startTokens.first(where: { $0.deviceID == card.deviceID && $0.householdID == card.householdID }) else {
            return try refuse("no la-pushToStart token for \(context.activityType) on this device")
        }
        try store.starts.releaseForRenewal(
            contextKey: context.key, householdID: card.householdID, deviceID: card.deviceID, reason: "renewed: a successor card starts",
            now: now, in: transaction)
        let reservation = try store.starts.reserve(
            contextKey: context.key, householdID: card.householdID, deviceID: card.deviceID, userID: card.userID, tokenID: startToken.id,
            viaChannel: false, now: now, budget: (configuration.startBudget, configuration.startBudgetWindow), in: transaction)
        guard case .reserved(let startID) = reservation else {
            return try refuse(
                "the successor's start was not queued (\(StartPlanner.outcome(of: reservation, deviceID: card.deviceID, userID: card.userID).reason ?? "no reason"))"
            )
        }
        let request = Starter.Request(
            context: context, userIDs: [], deviceIDs: [card.deviceID], alert: Self.alert, startsFollowChannel: false, scheduledAt: nil, now: now)
        let payload = try starter.startPayload(context, channelID: nil, request: request, in: transaction)
        try starter.enqueueStart(context, token: startToken, startID: startID, payload: payload, request: request, in: transaction)
        try store.renewals.insert(
            contextKey: context.key, householdID: card.householdID, deviceID: card.deviceID, oldTokenID: card.id, startID: startID,
            deadline: context.deadlineAt, reason: nil, now: now, in: transaction)
        return true
    }
}
