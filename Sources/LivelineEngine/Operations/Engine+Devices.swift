import Foundation
import LivelineModel
import LivelineStore

/// What the devices of a household tell the engine: their push tokens, what they rendered, what
/// the user dismissed or turned off.
extension Engine {
    /// Registers a push token (idempotent; a newer token of the same slot replaces the older, kept
    /// in history). An `la-update` token of a context also answers that device's push-to-start, in
    /// the same transaction; a new one of a running context gets the current state at once (the
    /// activity may have missed changes between its start and its token), as a one-target sync
    /// row. Throws `.invalidArgument` (a store error) for a registration that cannot be stored.
    @discardableResult
    public func registerToken(_ registration: TokenRegistration) throws -> RegistrationOutcome {
        try registerTokenAsStored(registration).outcome
    }

    /// ``registerToken(_:)``, with the registration as it was stored: one without an environment
    /// (the default's guess) of a token the other environment was learned to take keeps going
    /// there, `learned`, instead of starting a guess again.
    public func registerTokenAsStored(_ registration: TokenRegistration) throws -> (outcome: RegistrationOutcome, stored: TokenRegistration) {
        let result = try write { change in
            var registration = registration
            // An update token's context is held first (PostgreSQL), as the dispatcher's recording
            // holds it before the tokens it marks: a change of it committing meanwhile is either
            // seen by the catch-up below or sees this token when its fan-out is claimed.
            if registration.kind == .update, let contextKey = registration.contextKey {
                _ = try store.contexts.lock(key: contextKey, in: change.sql)
            }
            if let learned = try store.tokens.learnedEnvironment(of: registration, in: change.sql) {
                registration.environment = learned
                registration.environmentSource = .learned
            }
            if let fingerprint = registration.contractFingerprint, let type = try contractType(of: registration, in: change.sql) {
                try library.requireVersion(of: type, fingerprint: fingerprint, in: change.sql)
            }
            let reported =
                if registration.kind == .update, let contextKey = registration.contextKey, let activityID = registration.activityID {
                    try store.reports.activity(
                        contextKey: contextKey, householdID: registration.householdID, deviceID: registration.deviceID, activityID: activityID,
                        in: change.sql)
                } else { nil as ActivityReport? }
            // The app reported this token's activity ended before the token came: nothing to push
            // to, and the slot's token (perhaps a newer card's) stays as it is.
            if reported?.state == .ended { return (RegistrationOutcome.unchanged, registration, nil as EngineEvent?) }
            // A transient card is the app's own while it is open: it answers no start.
            if registration.kind == .update, let contextKey = registration.contextKey, reported?.style != .transient {
                try change.answerStart(contextKey: contextKey, householdID: registration.householdID, deviceID: registration.deviceID)
            }
            let outcome = try store.tokens.register(registration, now: change.now, in: change.sql)
            var renewal: EngineEvent?
            if outcome != .unchanged {
                // A new update token while the device's card is being renewed: the successor's.
                if registration.kind == .update, let contextKey = registration.contextKey {
                    renewal = try renewer.successorAnswered(
                        contextKey: contextKey, householdID: registration.householdID, deviceID: registration.deviceID, at: change.now,
                        in: change.sql)
                }
                try catchUp(registration, in: change)
            }
            return (outcome, registration, renewal)
        }
        store.tokens.noteCommitted()
        if let event = result.2 { logger.record(event) }
        return (result.0, result.1)
    }

    /// The activity type a token is for: a push-to-start token's own, an update token's context's
    /// (nil while the context does not exist).
    private func contractType(of registration: TokenRegistration, in transaction: any SQLTransaction) throws -> String? {
        switch registration.kind {
        case .pushToStart: registration.attributesType
        case .update: try registration.contextKey.flatMap { try store.contexts.context(key: $0, in: transaction)?.activityType }
        case .alert, .webPush, .widgets: nil
        }
    }

    private func catchUp(_ registration: TokenRegistration, in change: EngineWrite) throws {
        guard registration.kind == .update, let key = registration.contextKey,
            let context = try change.context(key), context.state == .active, context.rev > 0,
            context.householdID == nil || context.householdID == registration.householdID,
            let token = try store.tokens.activeToken(
                householdID: registration.householdID, environment: registration.environment, kind: .update, slot: try registration.slot,
                in: change.sql
            )
        else { return }
        _ = try store.outbox.enqueueSync(contextKey: key, target: .token(token.id), now: change.now, in: change.sql)
    }

    /// Removes the household's registrations of `token`; returns how many were active. Rows of
    /// other households are never touched.
    @discardableResult
    public func unregisterToken(_ token: String, householdID: HouseholdID) throws -> Int {
        try store.tokens.unregister(token: token, householdID: householdID, now: configuration.clock())
    }

    /// The user's active tokens.
    public func activeTokens(userID: UserID) throws -> [PushTokenRecord] { try store.tokens.activeTokens(userID: userID) }

    /// Goes up with every write of the token registry (for caches of what was read from it).
    public var tokenChanges: ChangeCounter { store.tokens.changes }

    /// The device rendered revision `rev` of the context (`POST /api/la/receipts`): kept unless a
    /// newer one is recorded already; it also answers the device's push-to-start of the context.
    /// Returns the revision recorded.
    @discardableResult
    public func recordReceipt(contextKey: String, householdID: HouseholdID, deviceID: String, userID: UserID, rev: Int) throws -> Int {
        try write { change in
            try change.answerStart(contextKey: contextKey, householdID: householdID, deviceID: deviceID)
            return try store.reports.recordReceipt(
                contextKey: contextKey, householdID: householdID, deviceID: deviceID, userID: userID, rev: rev, now: change.now, in: change.sql
            )
        }
    }

    /// The app's own activity of the context on a device (`POST /api/la/activity`; `docs/engine.md`,
    /// "App-reported activities"): the newest report per device and activity is kept; `active` of a standard
    /// activity also answers the device's start of the context, as a receipt does (a transient
    /// one is the app's own while it is open, never the card a start brings).
    ///
    /// `styleGiven` false: the report left its style out, and the one reported before for this
    /// activity is kept (a transient card's `ended` stays transient). `ended` of an activity with
    /// an id ends the device's update tokens of that activity. Returns the report as stored.
    @discardableResult
    public func reportActivity(_ report: ActivityReport, styleGiven: Bool = true) throws -> ActivityReport {
        defer { store.tokens.changes.bump() }
        return try write { change in
            // Held as a registration of the context's token holds it: one of the two sees the other.
            _ = try store.contexts.lock(key: report.contextKey, in: change.sql)
            var report = report
            if !styleGiven,
                let before = try store.reports.activity(
                    contextKey: report.contextKey, householdID: report.householdID, deviceID: report.deviceID, activityID: report.activityID,
                    in: change.sql)
            {
                report.style = before.style
            }
            if report.state == .active, report.style != .transient {
                try change.answerStart(contextKey: report.contextKey, householdID: report.householdID, deviceID: report.deviceID)
            }
            if report.state == .ended, !report.activityID.isEmpty {
                try store.tokens.endUpdateTokens(
                    contextKey: report.contextKey, householdID: report.householdID, deviceID: report.deviceID, activityID: report.activityID,
                    reason: "the app reported the activity ended", now: change.now, in: change.sql)
            }
            try store.reports.recordActivity(report, in: change.sql)
            return report
        }
    }

    /// The user dismissed the context's activity (`POST /api/la/dismissed`): no new start for
    /// them unless asked, and their update tokens for it are ended (the activity is gone).
    /// Returns how many tokens ended.
    @discardableResult
    public func dismissed(contextKey: String, userID: UserID) throws -> Int {
        let now = configuration.clock()
        defer { store.tokens.changes.bump() }
        return try store.write { transaction in
            try store.reports.dismiss(contextKey: contextKey, userID: userID, now: now, in: transaction)
            try store.reports.endActivities(contextKey: contextKey, userID: userID, now: now, in: transaction)
            return try store.tokens.endUpdateTokens(
                contextKey: contextKey, userID: userID, reason: "dismissed by the user", now: now, in: transaction)
        }
    }

    /// The user's Live Activity setting per activity type (types not listed are on).
    public func optIns(userID: UserID) throws -> [String: Bool] { try store.reports.optIns(userID: userID) }

    /// Turns the user's Live Activities of `attributesType` on or off (off: never push-started).
    public func setOptIn(userID: UserID, attributesType: String, enabled: Bool) throws {
        try store.reports.setOptIn(userID: userID, attributesType: attributesType, enabled: enabled, now: configuration.clock())
    }
}

/// The people the engine pushes to, as the API reads them.
extension Engine {
    /// The user with `id`; nil when there is none.
    public func user(id: UserID) throws -> UserRecord? { try store.accounts.user(id: id) }

    /// The household's members.
    public func members(householdID: HouseholdID) throws -> [UserRecord] { try store.accounts.members(householdID: householdID) }

    /// The household with `id`; nil when there is none.
    public func household(id: HouseholdID) throws -> HouseholdRecord? { try store.accounts.household(id: id) }
}

/// The inbox (notify's first channel), as the API reads and marks it.
extension Engine {
    /// The user's inbox, newest first.
    public func notifications(userID: UserID, limit: Int = 100) throws -> [NotificationRecord] {
        try store.notifications.notifications(userID: userID, limit: limit)
    }

    /// The user's record with `dedupeKey`; nil when there is none.
    public func notification(userID: UserID, dedupeKey: String) throws -> NotificationRecord? {
        try store.notifications.notification(userID: userID, dedupeKey: dedupeKey)
    }

    /// Marks one of the user's records read; false when the user has no record `id`.
    public func markRead(notification id: Int, userID: UserID) throws -> Bool {
        try store.notifications.markRead(id: id, userID: userID, now: configuration.clock())
    }
}

/// What `/metrics` reports beside the counters of ``EngineMetrics``.
extension Engine {
    /// The outbox's rows by state and the age of the oldest due one, now.
    public func outboxDepth() throws -> OutboxDepth { try store.outbox.depth(now: configuration.clock()) }

    /// How many active push-to-start tokens are suspect (a start they got went unanswered).
    public func suspectStartTokens() throws -> Int { try store.tokens.suspectCount() }
}
