import Foundation

/// Push-to-start bookkeeping (`la_starts`): at most one start per context and device, a start
/// budget per device, and whether the device answered with its `la-update` token.
///
/// The unique (context, device) row is taken in the caller's transaction, together with the
/// start's outbox row, so concurrent or repeated start requests send one start per device
/// (`engine.md`, "Lifecycle"; `painpoints.md` §6).
public struct StartRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Takes the (context, device) start, unless the device has one already or its budget
    /// (`budget.count` starts within `budget.window`, any context) is used up. A start that was
    /// skipped or failed earlier may be taken again.
    public func reserve(
        contextKey: String, deviceID: String, userID: Int, tokenID: Int, now: Date, budget: (count: Int, window: TimeInterval),
        in transaction: any SQLTransaction
    ) throws -> StartReservation {
        let existing = try transaction.queryOne(
            "SELECT \(StartRecord.columns) FROM la_starts WHERE context_key = $1 AND device_id = $2", [.text(contextKey), .text(deviceID)]
        ).map(StartRecord.init(row:))
        if let existing, existing.status == .queued || existing.status == .sent {
            return .alreadyStarted(existing.status)
        }
        let recent = try transaction.queryOne(
            """
            SELECT COUNT(*) AS n FROM la_starts
            WHERE device_id = $1 AND status IN ('queued', 'sent') AND created_at > $2
            """,
            [.text(deviceID), SQLValue(now.addingTimeInterval(-budget.window))]
        )?.int("n") ?? 0
        if recent >= budget.count {
            let reason = "start budget: \(recent) starts to this device in the last \(Int(budget.window / 60)) minutes (limit \(budget.count))"
            if let existing {
                try transaction.execute(
                    "UPDATE la_starts SET status = 'skipped', reason = $2, updated_at = $3 WHERE id = $1",
                    [SQLValue(existing.id), .text(reason), SQLValue(now)]
                )
            } else {
                try transaction.execute(
                    """
                    INSERT INTO la_starts (context_key, device_id, user_id, token_id, status, reason, created_at, updated_at)
                    VALUES ($1, $2, $3, $4, 'skipped', $5, $6, $6)
                    """,
                    [.text(contextKey), .text(deviceID), SQLValue(userID), SQLValue(tokenID), .text(reason), SQLValue(now)]
                )
            }
            return .overBudget(reason: reason)
        }
        if let existing {
            try transaction.execute(
                """
                UPDATE la_starts SET status = 'queued', reason = NULL, token_id = $2, user_id = $3, created_at = $4, updated_at = $4
                WHERE id = $1
                """,
                [SQLValue(existing.id), SQLValue(tokenID), SQLValue(userID), SQLValue(now)]
            )
            return .reserved(id: existing.id)
        }
        // ON CONFLICT: a concurrent transaction (another instance) took it first.
        guard let row = try transaction.queryOne(
            """
            INSERT INTO la_starts (context_key, device_id, user_id, token_id, status, created_at, updated_at)
            VALUES ($1, $2, $3, $4, 'queued', $5, $5)
            ON CONFLICT (context_key, device_id) DO NOTHING
            RETURNING id
            """,
            [.text(contextKey), .text(deviceID), SQLValue(userID), SQLValue(tokenID), SQLValue(now)]
        ) else {
            return .alreadyStarted(.queued)
        }
        return .reserved(id: try row.int("id"))
    }

    /// Records that a start on this device was not sent, with the reason (e.g. the user dismissed
    /// the activity), unless the device has a start queued or sent already. It shows in the
    /// context's timeline; a later call may still take the start.
    public func recordSkipped(
        contextKey: String, deviceID: String, userID: Int, tokenID: Int, reason: String, now: Date, in transaction: any SQLTransaction
    ) throws {
        try transaction.execute(
            """
            INSERT INTO la_starts (context_key, device_id, user_id, token_id, status, reason, created_at, updated_at)
            VALUES ($1, $2, $3, $4, 'skipped', $5, $6, $6)
            ON CONFLICT (context_key, device_id) DO UPDATE SET status = 'skipped', reason = excluded.reason, updated_at = excluded.updated_at
                WHERE la_starts.status IN ('skipped', 'failed')
            """,
            [.text(contextKey), .text(deviceID), SQLValue(userID), SQLValue(tokenID), .text(reason), SQLValue(now)]
        )
    }

    /// Records APNs' verdict on a start: accepted (`sent`) or refused for good (`failed`, with the reason).
    public func finish(id: Int, accepted: Bool, reason: String?, now: Date) throws {
        try database.write { transaction in
            try transaction.execute(
                """
                UPDATE la_starts SET status = $2, reason = $3, sent_at = CASE WHEN $2 = 'sent' THEN $4 ELSE sent_at END, updated_at = $4
                WHERE id = $1 AND status = 'queued'
                """,
                [SQLValue(id), .text(accepted ? "sent" : "failed"), SQLValue(reason), SQLValue(now)]
            )
        }
    }

    /// Starts accepted before `sentBefore` whose device never registered its update token, not yet
    /// marked suspect.
    public func unanswered(sentBefore: Date) throws -> [StartRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(StartRecord.columns) FROM la_starts
                WHERE status = 'sent' AND update_token_at IS NULL AND suspect_at IS NULL AND sent_at < $1
                ORDER BY id
                """,
                [SQLValue(sentBefore)]
            ).map(StartRecord.init(row:))
        }
    }

    /// Marks an unanswered start suspect; `false` when it was answered or marked meanwhile.
    @discardableResult
    public func markSuspect(id: Int, now: Date) throws -> Bool {
        try database.write { transaction in
            try transaction.execute(
                "UPDATE la_starts SET suspect_at = $2, updated_at = $2 WHERE id = $1 AND update_token_at IS NULL AND suspect_at IS NULL",
                [SQLValue(id), SQLValue(now)]
            ) == 1
        }
    }

    /// The context's starts, by device.
    public func starts(contextKey: String) throws -> [StartRecord] {
        try database.read { transaction in try starts(contextKey: contextKey, in: transaction) }
    }

    public func starts(contextKey: String, in transaction: any SQLTransaction) throws -> [StartRecord] {
        try transaction.query(
            "SELECT \(StartRecord.columns) FROM la_starts WHERE context_key = $1 ORDER BY device_id", [.text(contextKey)]
        ).map(StartRecord.init(row:))
    }
}
