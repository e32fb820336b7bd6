import Foundation

extension ContextRepository {
    /// The context, or `nil` for an unknown key.
    public func context(key: String) throws -> ContextRecord? {
        try database.read { transaction in try context(key: key, in: transaction) }
    }

    /// The context in the caller's transaction (a write sees its own uncommitted changes).
    public func context(key: String, in transaction: any SQLTransaction) throws -> ContextRecord? {
        try transaction.queryOne("SELECT \(ContextRecord.columns) FROM contexts WHERE key = $1", [.text(key)])
            .map(ContextRecord.init(row:))
    }

    /// The context's current revision, or `nil` for an unknown key.
    public func revision(key: String) throws -> Int? {
        try database.read { transaction in try revision(key: key, in: transaction) }
    }

    public func revision(key: String, in transaction: any SQLTransaction) throws -> Int? {
        try transaction.queryOne("SELECT rev FROM contexts WHERE key = $1", [.text(key)])?.int("rev")
    }

    /// Pull-reconcile, `GET …?since_rev=N` (`docs/engine.md`, "Pull-reconcile"), in one read transaction:
    /// `rev` first; `.unchanged` when `sinceRev == rev`, else the whole record. `nil` for an
    /// unknown key.
    public func snapshotRead(key: String, sinceRev: Int?) throws -> SnapshotRead? {
        try database.read { transaction in try snapshotRead(key: key, sinceRev: sinceRev, in: transaction) }
    }

    /// ``snapshotRead(key:sinceRev:)`` in the caller's read transaction, so a domain snapshot builder
    /// reads its own tables in the same consistent snapshot right after.
    public func snapshotRead(key: String, sinceRev: Int?, in transaction: any SQLTransaction) throws -> SnapshotRead? {
        guard
            let head = try transaction.queryOne(
                "SELECT rev, activity_type, state FROM contexts WHERE key = $1", [.text(key)]
            )
        else { return nil }
        let rev = try head.int("rev")
        if let sinceRev, sinceRev == rev {
            guard let state = ContextState(rawValue: try head.string("state")) else {
                throw StoreError(.column, "contexts.state holds an unknown state")
            }
            return .unchanged(key: key, activityType: try head.string("activity_type"), state: state, rev: rev)
        }
        guard let record = try context(key: key, in: transaction) else { return nil }
        return .changed(record)
    }

    /// Whether a device of the household follows the context: it registered a token for the key or
    /// was sent a start of it. An app may pull a `/v1` context (no owner) only then.
    public func isFollowed(key: String, householdID: HouseholdID) throws -> Bool {
        try database.read { transaction in
            try transaction.queryOne(
                """
                SELECT 1 AS yes WHERE EXISTS (SELECT 1 FROM push_tokens WHERE context_key = $1 AND household_id = $2)
                    OR EXISTS (SELECT 1 FROM la_starts WHERE context_key = $1 AND household_id = $2)
                """,
                [.text(key), SQLValue(householdID)]
            ) != nil
        }
    }

    /// Every context in `state` (all with `nil`), by key.
    public func contexts(state: ContextState? = nil) throws -> [ContextRecord] {
        try database.read { transaction in
            if let state {
                try transaction.query(
                    "SELECT \(ContextRecord.columns) FROM contexts WHERE state = $1 ORDER BY key", [.text(state.rawValue)]
                ).map(ContextRecord.init(row:))
            } else {
                try transaction.query("SELECT \(ContextRecord.columns) FROM contexts ORDER BY key").map(ContextRecord.init(row:))
            }
        }
    }

    /// Active contexts whose deadline is at or before `now`, earliest deadline first.
    ///
    /// The engine ends (or renews) a context *before* its 8-hour deadline (`docs/engine.md`,
    /// "Lifecycle"): pass `now` plus the margin it wants.
    public func contextsPastDeadline(now: Date) throws -> [ContextRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(ContextRecord.columns) FROM contexts WHERE state = 'active' AND deadline_at <= $1
                ORDER BY deadline_at, key
                """,
                [SQLValue(now)]
            ).map(ContextRecord.init(row:))
        }
    }

    /// The context's revisions, newest first.
    public func revisions(key: String, limit: Int = 100) throws -> [ContextRevision] {
        try database.read { transaction in
            try transaction.query(
                "SELECT \(ContextRevision.columns) FROM context_revisions WHERE context_key = $1 ORDER BY rev DESC LIMIT $2",
                [.text(key), SQLValue(limit)]
            ).map(ContextRevision.init(row:))
        }
    }

    /// The context's timeline, newest first, at most `limit` entries: its revisions, every delivery
    /// attempt, its dead letters, its starts per device, the newest receipt per device, its renewals and the app's reported activities, read in
    /// one read transaction (`GET /v1/contexts/{key}/timeline`). At the same instant a revision sorts below the attempts it
    /// caused.
    public func timeline(key: String, limit: Int = 200) throws -> [TimelineEntry] {
        try database.read { transaction in
            let revisions = try transaction.query(
                """
                SELECT \(ContextRevision.columns) FROM context_revisions WHERE context_key = $1
                ORDER BY changed_at DESC, rev DESC LIMIT $2
                """,
                [.text(key), SQLValue(limit)]
            ).map { TimelineEntry.revision(try ContextRevision(row: $0)) }
            let attempts = try DeliveryRepository(database: database)
                .attempts(contextKey: key, limit: limit, in: transaction).map(TimelineEntry.delivery)
            let dead = try outbox.deadLetters(contextKey: key, limit: limit, in: transaction).map(TimelineEntry.deadLetter)
            let starts = try StartRepository(database: database).starts(contextKey: key, in: transaction).map(TimelineEntry.start)
            let receipts = try ActivityReportRepository(database: database).receipts(contextKey: key, in: transaction).map(TimelineEntry.receipt)
            let renewals = try RenewalRepository(database: database).renewals(contextKey: key, in: transaction).map(TimelineEntry.renewal)
            let activities = try ActivityReportRepository(database: database).activities(contextKey: key, in: transaction)
                .map(TimelineEntry.activity)
            let merged = (revisions + attempts + dead + starts + receipts + renewals + activities).sorted { left, right in
                (left.date, left.rank, left.sequence) > (right.date, right.rank, right.sequence)
            }
            return Array(merged.prefix(limit))
        }
    }
}
