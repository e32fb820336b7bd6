import Foundation

/// The delivery log: every attempt to hand a push to APNs (`docs/engine.md`, "The transactional outbox
/// and the dispatcher": records every attempt: `apns-id`, status, reason, priority, latency).
public struct DeliveryRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Records one attempt in its own write transaction and returns its id.
    @discardableResult
    public func record(_ attempt: DeliveryAttempt) throws -> Int {
        try database.write { transaction in try record(attempt, in: transaction) }
    }

    /// Records one attempt in the caller's transaction (e.g. together with the outbox outcome or a
    /// token marked invalid) and returns its id. `attempt.id` is ignored.
    @discardableResult
    public func record(_ attempt: DeliveryAttempt, in transaction: any SQLTransaction) throws -> Int {
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO deliveries (outbox_id, context_key, rev, target_kind, target, apns_id, status, reason, priority,
                    latency_ms, attempted_at, note, environment)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                RETURNING id
                """,
                [
                    SQLValue(attempt.outboxID), SQLValue(attempt.contextKey), SQLValue(attempt.rev),
                    .text(attempt.targetKind.rawValue), .text(attempt.target), SQLValue(attempt.apnsID), SQLValue(attempt.status),
                    SQLValue(attempt.reason), SQLValue(attempt.priority), SQLValue(attempt.latencyMilliseconds),
                    SQLValue(attempt.attemptedAt), SQLValue(attempt.note), SQLValue(attempt.environment?.rawValue),
                ]
            )
        else {
            throw StoreError(.database, "recording a delivery attempt returned no id")
        }
        return try row.int("id")
    }

    /// Records `attempts` in the caller's transaction, several to a statement (a dispatcher's
    /// batch); in their order, so their ids follow it. If it throws, some of them may be written:
    /// let the error end the transaction (``insert(rows:dialect:)``).
    public func record(_ attempts: [DeliveryAttempt], in transaction: any SQLTransaction) throws {
        var rest = attempts[...]
        while !rest.isEmpty {
            // 13 values a row: well inside both backends' limits on parameters.
            let chunk = rest.prefix(Self.rowsPerStatement)
            rest = rest.dropFirst(chunk.count)
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(chunk.count * 13)
            for attempt in chunk {
                // One append each: a literal array per row would be an allocation per delivery.
                parameters.append(SQLValue(attempt.outboxID))
                parameters.append(SQLValue(attempt.contextKey))
                parameters.append(SQLValue(attempt.rev))
                parameters.append(.text(attempt.targetKind.rawValue))
                parameters.append(.text(attempt.target))
                parameters.append(SQLValue(attempt.apnsID))
                parameters.append(SQLValue(attempt.status))
                parameters.append(SQLValue(attempt.reason))
                parameters.append(SQLValue(attempt.priority))
                parameters.append(SQLValue(attempt.latencyMilliseconds))
                parameters.append(SQLValue(attempt.attemptedAt))
                parameters.append(SQLValue(attempt.note))
                parameters.append(SQLValue(attempt.environment?.rawValue))
            }
            let dialect = database.dialect
            let sql = chunk.count == Self.rowsPerStatement ? Self.fullInserts[dialect] : nil
            try transaction.execute(sql ?? Self.insert(rows: chunk.count, dialect: dialect), parameters)
        }
    }

    /// Delivery rows one statement of ``record(_:in:)`` inserts at most.
    static let rowsPerStatement = 50
    /// The statement of a full chunk per dialect, made once (a fan-out's pages are mostly full
    /// chunks).
    static let fullInserts = Dictionary(uniqueKeysWithValues: SQLDialect.allCases.map { ($0, insert(rows: rowsPerStatement, dialect: $0)) })

    /// `INSERT INTO deliveries` of `rows` rows of parameters.
    ///
    /// On SQLite `OR FAIL`: a statement that writes several rows and may stop at a constraint
    /// with the default `ABORT` keeps a statement journal, the pages it changes as they were
    /// before it, to undo its own rows; past 64 KiB that journal is a temporary file, written
    /// page by page ("Temporary Files Used By SQLite", statement journals; "The ON CONFLICT
    /// Clause"). With `FAIL` the rows it wrote before the failure stay — until the transaction,
    /// or a write group's savepoint, is rolled back, as each caller's error does.
    static func insert(rows: Int, dialect: SQLDialect) -> String {
        let values = (0..<rows).map { row in "(" + (1...13).map { "$\(row * 13 + $0)" }.joined(separator: ", ") + ")" }
        return """
            INSERT\(dialect == .sqlite ? " OR FAIL" : "") INTO deliveries (outbox_id, context_key, rev, target_kind, target, apns_id, status,
                reason, priority, latency_ms, attempted_at, note, environment)
            VALUES \(values.joined(separator: ", "))
            """
    }

    /// The per-activity ledger of the budget (`docs/engine.md`, "Budgets and priority"): how many
    /// priority-10 pushes of the context APNs accepted since `since`, per target; with
    /// `channelsOnly`, of its channels alone (a fan-out reads its tokens' counts with the tokens:
    /// ``PushTokenRepository/updateTargets(contextKey:environment:householdID:onlyID:ledgerSince:in:)``).
    public func priorityLedger(
        contextKey: String, since: Date, channelsOnly: Bool = false, in transaction: any SQLTransaction
    ) throws -> [OutboxTarget: Int] {
        var ledger: [OutboxTarget: Int] = [:]
        let parameters = [SQLValue.text(contextKey), SQLValue(since)]
        for row in try transaction.query(Self.ledgerSQL(database.dialect, .channel), parameters) {
            ledger[.channel(try row.string("counted"))] = try row.int("n")
        }
        guard !channelsOnly else { return ledger }
        for row in try transaction.query(Self.ledgerSQL(database.dialect, .token), parameters) {
            ledger[.token(PushTokenID(try row.int("counted")))] = try row.int("n")
        }
        return ledger
    }

    /// The ledger's counts of one kind of target, the context bound at `$1` and the time since at
    /// `$2`: from `deliveries_budget_tokens` or `deliveries_budget_channels` (migration 19) alone,
    /// in their order. The unary `+` keeps SQLite from taking `deliveries_context` for the time
    /// range instead (a table lookup and a sort for every delivery), which it does while it has
    /// no statistics.
    static func ledgerSQL(_ dialect: SQLDialect, _ kind: DeliveryTargetKind) -> String {
        let target = kind == .token ? dialect.deliveryTokenID() : "target"
        return """
            SELECT \(target) AS counted, COUNT(*) AS n FROM deliveries
            WHERE context_key = $1 AND +attempted_at >= $2 AND priority = 10 AND status = 200 AND target_kind = '\(kind.rawValue)'
            GROUP BY \(target)
            """
    }

    /// The newest revision of the context APNs accepted a push of, or `nil`.
    public func lastDeliveredRev(contextKey: String) throws -> Int? {
        try database.read { transaction in
            try transaction.queryOne(
                "SELECT MAX(rev) AS rev FROM deliveries WHERE context_key = $1 AND status = 200", [.text(contextKey)]
            )?.optionalInt("rev")
        }
    }

    /// The newest revision of the context APNs accepted for one target, or `nil`.
    public func lastDeliveredRev(contextKey: String, target: OutboxTarget, in transaction: any SQLTransaction) throws -> Int? {
        let (kind, value): (String, String) =
            switch target {
            case .token(let id): ("token", String(id.rawValue))
            case .channel(let id): ("channel", id)
            }
        return try transaction.queryOne(
            """
            SELECT MAX(rev) AS rev FROM deliveries
            WHERE context_key = $1 AND target_kind = $2 AND target = $3 AND status = 200
            """,
            [.text(contextKey), .text(kind), .text(value)]
        )?.optionalInt("rev")
    }

    /// The context's attempts, newest first.
    public func attempts(contextKey: String, limit: Int = 100) throws -> [DeliveryAttempt] {
        try database.read { transaction in try attempts(contextKey: contextKey, limit: limit, in: transaction) }
    }

    /// The context's attempts, newest first, in the caller's transaction.
    public func attempts(contextKey: String, limit: Int, in transaction: any SQLTransaction) throws -> [DeliveryAttempt] {
        try transaction.query(
            """
            SELECT \(DeliveryAttempt.columns) FROM deliveries WHERE context_key = $1
            ORDER BY attempted_at DESC, id DESC LIMIT $2
            """,
            [.text(contextKey), SQLValue(limit)]
        ).map(DeliveryAttempt.init(row:))
    }

    /// Attempts by HTTP status and reason over the whole log, by status then reason (no reason first).
    ///
    /// It reads the whole table: fine for a scrape every few seconds on a log of some 100,000
    /// rows; prune the log (``deleteAttempts(before:)``) or count in memory beyond that.
    public func countsByStatusAndReason() throws -> [DeliveryCount] {
        let counts = try database.read { transaction in
            try transaction.query(
                "SELECT status, reason, COUNT(*) AS n FROM deliveries GROUP BY status, reason"
            ).map { row in
                DeliveryCount(status: try row.int("status"), reason: try row.optionalString("reason"), count: try row.int("n"))
            }
        }
        return counts.sorted(by: Self.statusThenReason)
    }

    private static func statusThenReason(_ left: DeliveryCount, _ right: DeliveryCount) -> Bool {
        if left.status != right.status { return left.status < right.status }
        switch (left.reason, right.reason) {
        case (nil, nil), (.some, nil): return false
        case (nil, .some): return true
        case (.some(let a), .some(let b)): return a < b
        }
    }

    /// Deletes attempts made before `cutoff` and returns how many.
    @discardableResult
    public func deleteAttempts(before cutoff: Date) throws -> Int {
        try database.write { transaction in
            try transaction.execute("DELETE FROM deliveries WHERE attempted_at < $1", [SQLValue(cutoff)])
        }
    }
}
