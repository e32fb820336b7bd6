import Foundation

/// Push-to-start bookkeeping (`la_starts`): at most one start per context and device, a start
/// budget per device, and whether the device answered with its `la-update` token.
///
/// The unique (context, device) row is taken in the caller's transaction, together with the
/// start's outbox row, so concurrent or repeated start requests send one start per device
/// (`docs/engine.md`, "Lifecycle"; `docs/painpoints.md` §6).
public struct StartRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Takes the (context, device) start, unless the device has one already or its budget
    /// (`budget.count` starts within `budget.window`, any context) is used up. A start that was
    /// skipped or failed earlier may be taken again. A device is `householdID`'s `deviceID`.
    /// `scheduledAt`: the start goes out then, not at once (it counts in the budget from now).
    public func reserve(
        contextKey: String, householdID: HouseholdID, deviceID: String, userID: UserID, tokenID: PushTokenID, viaChannel: Bool,
        scheduledAt: Date? = nil, now: Date, budget: (count: Int, window: TimeInterval), in transaction: any SQLTransaction
    ) throws -> StartReservation {
        // The budget is counted, then used: starts for one device from several instances at once
        // queue up on PostgreSQL (an advisory lock per schema and device, held to the commit);
        // SQLite's writes are one at a time already.
        if database.dialect == .postgres {
            try transaction.execute(
                "SELECT pg_advisory_xact_lock(72617, hashtext(current_schema() || ':' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT)))",
                [SQLValue(householdID), .text(deviceID)])
        }
        let existing = try transaction.queryOne(
            "SELECT \(StartRecord.columns) FROM la_starts WHERE context_key = $1 AND household_id = $2 AND device_id = $3",
            [.text(contextKey), SQLValue(householdID), .text(deviceID)]
        ).map(StartRecord.init(row:))
        if let existing, existing.status == .queued || existing.status == .sent {
            return .alreadyStarted(existing.status)
        }
        // Counted by when each start goes out (a scheduled one at its time): the starts within one
        // window before or after this one's, so no window holding this one ends up over the budget.
        let sendAt = scheduledAt ?? now
        let recent =
            try transaction.queryOne(
                """
                SELECT COUNT(*) AS n FROM la_starts
                WHERE household_id = $1 AND device_id = $2 AND (status IN ('queued', 'sent') OR sent_at IS NOT NULL)
                    AND COALESCE(scheduled_at, created_at) > $3 AND COALESCE(scheduled_at, created_at) < $4
                """,
                [
                    SQLValue(householdID), .text(deviceID), SQLValue(sendAt.addingTimeInterval(-budget.window)),
                    SQLValue(sendAt.addingTimeInterval(budget.window)),
                ]
            )?.int("n") ?? 0
        if recent >= budget.count {
            let reason = "start budget: \(recent) starts to this device in the last \(Int(budget.window / 60)) minutes (limit \(budget.count))"
            try recordSkipped(
                contextKey: contextKey, householdID: householdID, deviceID: deviceID, userID: userID, tokenID: tokenID, reason: reason,
                now: now, in: transaction
            )
            return .overBudget(reason: reason)
        }
        if let existing {
            // Only a skipped or failed start is taken again (a concurrent taker changed the status).
            let taken = try transaction.execute(
                """
                UPDATE la_starts SET status = 'queued', reason = NULL, token_id = $2, user_id = $3, via_channel = $4, created_at = $5,
                    updated_at = $5, sent_at = NULL, update_token_at = NULL, suspect_at = NULL, scheduled_at = $6, missed_at = NULL
                WHERE id = $1 AND status IN ('skipped', 'failed')
                """,
                [SQLValue(existing.id), SQLValue(tokenID), SQLValue(userID), SQLValue(viaChannel), SQLValue(now), SQLValue(scheduledAt)]
            )
            return taken == 1 ? .reserved(id: existing.id) : .alreadyStarted(.queued)
        }
        // ON CONFLICT: a concurrent transaction (another instance) took it first.
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO la_starts (
                    context_key, household_id, device_id, user_id, token_id, status, via_channel, created_at, updated_at, scheduled_at)
                VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $7, $8)
                ON CONFLICT (context_key, household_id, device_id) DO NOTHING
                RETURNING id
                """,
                [
                    .text(contextKey), SQLValue(householdID), .text(deviceID), SQLValue(userID), SQLValue(tokenID), SQLValue(viaChannel),
                    SQLValue(now), SQLValue(scheduledAt),
                ]
            )
        else {
            return .alreadyStarted(.queued)
        }
        return .reserved(id: try row.int("id"))
    }

    /// The device answered the context's start — it registered its `la-update` token or reported
    /// a rendered revision: the start is answered. A renewal's start is not answered while APNs has
    /// not accepted it: until then the device's answers are its predecessor's; nor is a start still
    /// queued for a later time (the card the device shows now is another). In the caller's
    /// transaction; returns whether a start was waiting (the engine then clears the suspicion of
    /// the device's push-to-start tokens, ``PushTokenRepository/clearStartSuspicion(householdID:deviceID:in:)``).
    @discardableResult
    public func answered(contextKey: String, householdID: HouseholdID, deviceID: String, now: Date, in transaction: any SQLTransaction) throws -> Bool
    {
        let answered = try transaction.execute(
            """
            UPDATE la_starts SET update_token_at = $4, suspect_at = NULL, updated_at = $4
            WHERE context_key = $1 AND household_id = $2 AND device_id = $3 AND update_token_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM la_renewals r WHERE r.start_id = la_starts.id AND r.status = 'starting')
                AND NOT (status = 'queued' AND scheduled_at IS NOT NULL AND scheduled_at > $4)
            """,
            [.text(contextKey), SQLValue(householdID), .text(deviceID), SQLValue(now)]
        )
        return answered > 0
    }

    /// Retires the starts of the context's previous card (queued or sent): each device may be
    /// started again for the new card.
    public func retire(contextKey: String, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            UPDATE la_starts SET status = 'skipped', reason = 'the card this start belonged to ended', updated_at = $2
            WHERE context_key = $1 AND status IN ('queued', 'sent')
            """,
            [.text(contextKey), SQLValue(now)]
        )
    }

    /// Lets the device's start of the context be taken again for a successor card (a renewal,
    /// `docs/engine.md`, "Renewal"): the previous card's start is settled as `skipped` with `reason`.
    public func releaseForRenewal(
        contextKey: String, householdID: HouseholdID, deviceID: String, reason: String, now: Date, in transaction: any SQLTransaction
    ) throws {
        try transaction.execute(
            """
            UPDATE la_starts SET status = 'skipped', reason = $4, updated_at = $5
            WHERE context_key = $1 AND household_id = $2 AND device_id = $3 AND status IN ('queued', 'sent')
            """,
            [.text(contextKey), SQLValue(householdID), .text(deviceID), .text(reason), SQLValue(now)]
        )
    }

    /// Cancels the context's queued starts (it ended before they went out); returns how many.
    @discardableResult
    public func cancelQueued(contextKey: String, reason: String, now: Date, in transaction: any SQLTransaction) throws -> Int {
        try transaction.execute(
            "UPDATE la_starts SET status = 'skipped', reason = $2, updated_at = $3 WHERE context_key = $1 AND status = 'queued'",
            [.text(contextKey), .text(reason), SQLValue(now)]
        )
    }

    /// Records that a start on this device was not sent, with the reason (the user dismissed the
    /// activity, the budget is used up), unless the device has a start queued or sent already. It
    /// shows in the context's timeline; a later call may still take the start.
    public func recordSkipped(
        contextKey: String, householdID: HouseholdID, deviceID: String, userID: UserID, tokenID: PushTokenID, reason: String, now: Date,
        in transaction: any SQLTransaction
    ) throws {
        try transaction.execute(
            """
            INSERT INTO la_starts (context_key, household_id, device_id, user_id, token_id, status, reason, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, 'skipped', $6, $7, $7)
            ON CONFLICT (context_key, household_id, device_id) DO UPDATE SET
                status = 'skipped', reason = excluded.reason, updated_at = excluded.updated_at
                WHERE la_starts.status IN ('skipped', 'failed')
            """,
            [.text(contextKey), SQLValue(householdID), .text(deviceID), SQLValue(userID), SQLValue(tokenID), .text(reason), SQLValue(now)]
        )
    }

    /// Records APNs' verdict on a start: accepted (`sent`) or refused for good (`failed`, with the reason).
    public func finish(id: Int, accepted: Bool, reason: String?, now: Date) throws {
        try database.write { transaction in try finish(id: id, accepted: accepted, reason: reason, now: now, in: transaction) }
    }

    /// ``finish(id:accepted:reason:now:)`` in the caller's transaction (with the delivery record
    /// of APNs' answer); only a start still `queued` changes.
    public func finish(id: Int, accepted: Bool, reason: String?, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            UPDATE la_starts SET status = $2, reason = $3, sent_at = CASE WHEN $2 = 'sent' THEN $4 ELSE sent_at END, updated_at = $4
            WHERE id = $1 AND status = 'queued'
            """,
            [SQLValue(id), .text(accepted ? "sent" : "failed"), SQLValue(reason), SQLValue(now)]
        )
    }

    /// Settles the queued start `id` as `skipped` with `reason` (it is not sent). In the caller's transaction.
    public func skip(id: Int, reason: String, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            "UPDATE la_starts SET status = 'skipped', reason = $2, updated_at = $3 WHERE id = $1 AND status = 'queued'",
            [SQLValue(id), .text(reason), SQLValue(now)])
    }

    /// Gives up on the queued scheduled start `id`: its time plus the grace period passed before
    /// it could be sent (`failed`, with `reason`, and `missed_at`). In the caller's transaction.
    public func markMissed(id: Int, reason: String, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            "UPDATE la_starts SET status = 'failed', reason = $2, missed_at = $3, updated_at = $3 WHERE id = $1 AND status = 'queued'",
            [SQLValue(id), .text(reason), SQLValue(now)]
        )
    }

    /// Starts accepted before `sentBefore` whose device never registered its update token, not yet
    /// marked suspect.
    public func unanswered(sentBefore: Date) throws -> [StartRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(StartRecord.columns) FROM la_starts
                WHERE status = 'sent' AND via_channel = 0 AND update_token_at IS NULL AND suspect_at IS NULL AND sent_at < $1
                ORDER BY id
                """,
                [SQLValue(sentBefore)]
            ).map(StartRecord.init(row:))
        }
    }

    /// Marks an unanswered start suspect; `false` when it was answered or marked meanwhile.
    @discardableResult
    public func markSuspect(id: Int, now: Date) throws -> Bool {
        try database.write { transaction in try markSuspect(id: id, now: now, in: transaction) }
    }

    @discardableResult
    public func markSuspect(id: Int, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            "UPDATE la_starts SET suspect_at = $2, updated_at = $2 WHERE id = $1 AND update_token_at IS NULL AND suspect_at IS NULL",
            [SQLValue(id), SQLValue(now)]
        ) == 1
    }

    /// The start `id`; nil when there is none.
    public func start(id: Int) throws -> StartRecord? {
        try database.read { transaction in
            try transaction.queryOne("SELECT \(StartRecord.columns) FROM la_starts WHERE id = $1", [SQLValue(id)]).map(StartRecord.init(row:))
        }
    }

    /// The context's starts, by device.
    public func starts(contextKey: String) throws -> [StartRecord] {
        try database.read { transaction in try starts(contextKey: contextKey, in: transaction) }
    }

    public func starts(contextKey: String, in transaction: any SQLTransaction) throws -> [StartRecord] {
        try transaction.query(
            "SELECT \(StartRecord.columns) FROM la_starts WHERE context_key = $1 ORDER BY household_id, device_id", [.text(contextKey)]
        ).map(StartRecord.init(row:))
    }
}
