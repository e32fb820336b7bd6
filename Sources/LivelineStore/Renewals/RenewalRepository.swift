import Foundation

/// Renewals of activities before their 8-hour limit (`context_renewals`, `la_renewals`;
/// `docs/engine.md`, "Renewal"). Every write is in the caller's transaction, beside the starts
/// and outbox rows it goes with, so a crash leaves a renewal planned with its starts or not at all.
public struct RenewalRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Active contexts of `types` whose deadline is at or before `before` and after `after`, not
    /// yet planned for that deadline.
    public func due(types: Set<String>, before: Date, after: Date) throws -> [ContextRecord] {
        guard !types.isEmpty else { return [] }
        let placeholders = (0..<types.count).map { "$\($0 + 3)" }.joined(separator: ", ")
        return try database.read { transaction in
            try transaction.query(
                """
                SELECT \(ContextRecord.columns) FROM contexts c
                WHERE c.state = 'active' AND c.deadline_at <= $1 AND c.deadline_at > $2 AND c.activity_type IN (\(placeholders))
                    AND NOT EXISTS (SELECT 1 FROM context_renewals r WHERE r.context_key = c.key AND r.deadline_at = c.deadline_at)
                ORDER BY c.deadline_at, c.key
                """,
                [SQLValue(before), SQLValue(after)] + types.sorted().map { SQLValue($0) }
            ).map(ContextRecord.init(row:))
        }
    }

    /// Marks the context's renewal for `deadline` planned; false when it was already (another
    /// sweep, or another instance, planned it first).
    public func markPlanned(contextKey: String, deadline: Date, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            """
            INSERT INTO context_renewals (context_key, deadline_at, planned_at) VALUES ($1, $2, $3)
            ON CONFLICT (context_key, deadline_at) DO NOTHING
            """,
            [.text(contextKey), SQLValue(deadline), SQLValue(now)]) == 1
    }

    /// Records one device's renewal: `starting` with its start, else `refused` with the reason.
    public func insert(
        contextKey: String, householdID: HouseholdID, deviceID: String, oldTokenID: PushTokenID, startID: Int?, deadline: Date,
        reason: String?, now: Date, in transaction: any SQLTransaction
    ) throws {
        try transaction.execute(
            """
            INSERT INTO la_renewals (context_key, household_id, device_id, old_token_id, start_id, deadline_at, status, reason, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
            ON CONFLICT (context_key, household_id, device_id, deadline_at) DO NOTHING
            """,
            [
                .text(contextKey), SQLValue(householdID), .text(deviceID), SQLValue(oldTokenID), SQLValue(startID), SQLValue(deadline),
                .text(startID == nil ? "refused" : "starting"), SQLValue(reason), SQLValue(now),
            ])
    }

    /// The renewal still `starting` whose successor is the start `startID`, if any.
    public func starting(startID: Int, in transaction: any SQLTransaction) throws -> RenewalRecord? {
        try transaction.queryOne(
            "SELECT \(RenewalRecord.columns) FROM la_renewals WHERE start_id = $1 AND status = 'starting'", [SQLValue(startID)]
        ).map(RenewalRecord.init(row:))
    }

    /// The renewal still `starting` of the device's card of `contextKey`, if any.
    public func starting(
        contextKey: String, householdID: HouseholdID, deviceID: String, in transaction: any SQLTransaction
    ) throws -> RenewalRecord? {
        try transaction.queryOne(
            "SELECT \(RenewalRecord.columns) FROM la_renewals WHERE context_key = $1 AND household_id = $2 AND device_id = $3 "
                + "AND status = 'starting'",
            [.text(contextKey), SQLValue(householdID), .text(deviceID)]
        ).map(RenewalRecord.init(row:))
    }

    /// Moves a renewal from `from` to `to` with the reason; false when it was not in `from`.
    @discardableResult
    public func settle(
        id: Int, from: RenewalRecord.Status, to: RenewalRecord.Status, reason: String?, now: Date, in transaction: any SQLTransaction
    ) throws -> Bool {
        try transaction.execute(
            "UPDATE la_renewals SET status = $3, reason = COALESCE($4, reason), updated_at = $5 WHERE id = $1 AND status = $2",
            [SQLValue(id), .text(from.rawValue), .text(to.rawValue), SQLValue(reason), SQLValue(now)]) == 1
    }

    /// Renewals without a successor (`starting` or `refused`) whose predecessor's deadline is at
    /// or before `before`: their predecessor ends there.
    public func unrenewed(before: Date) throws -> [RenewalRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(RenewalRecord.columns) FROM la_renewals
                WHERE status IN ('starting', 'refused') AND deadline_at <= $1 ORDER BY deadline_at, id
                """,
                [SQLValue(before)]
            ).map(RenewalRecord.init(row:))
        }
    }

    /// Moves the context's deadline to `deadline` (a successor's 8 hours), never back.
    public func extendDeadline(contextKey: String, to deadline: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            "UPDATE contexts SET deadline_at = $2 WHERE key = $1 AND state = 'active' AND deadline_at < $2", [.text(contextKey), SQLValue(deadline)])
    }

    /// The context's active `la-update` tokens (every environment): the cards to renew.
    public func updateTokens(contextKey: String, in transaction: any SQLTransaction) throws -> [PushTokenRecord] {
        try transaction.query(
            """
            SELECT \(PushTokenRecord.columns) FROM push_tokens
            WHERE kind = 'la-update' AND context_key = $1 AND status = 'active' ORDER BY household_id, device_id, id
            """,
            [.text(contextKey)]
        ).map(PushTokenRecord.init(row:))
    }

    /// The context's renewals, oldest first.
    public func renewals(contextKey: String) throws -> [RenewalRecord] {
        try database.read { transaction in try renewals(contextKey: contextKey, in: transaction) }
    }

    public func renewals(contextKey: String, in transaction: any SQLTransaction) throws -> [RenewalRecord] {
        try transaction.query("SELECT \(RenewalRecord.columns) FROM la_renewals WHERE context_key = $1 ORDER BY id", [.text(contextKey)])
            .map(RenewalRecord.init(row:))
    }
}
