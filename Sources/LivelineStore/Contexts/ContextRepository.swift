import Foundation

/// Contexts and their revisions: the one place a change is recorded, and the reads the engine
/// and the API need.
///
/// Rules from `docs/engine.md`, "Contexts, revisions, snapshots":
/// - `rev` goes up by one in the **same transaction** as every mutation that changes what the
///   card shows (``recordChange(key:now:note:in:)``); it never goes down and never repeats (the
///   increment happens in SQL on the locked row, so concurrent writers serialise on it).
/// - That transaction also inserts the (coalesced) sync row of the outbox, so a committed change
///   always has a due or leased sync row until a push rendered after it was completed; a crash
///   after the commit loses nothing ("The transactional outbox and the dispatcher").
/// - Pull-reconcile reads `rev` first, then the body, in one read transaction
///   (``snapshotRead(key:sinceRev:in:)``).
/// - `aps.timestamp` is strictly increasing per context, in seconds (``nextPushTimestamp(key:now:in:)``).
///
/// Methods taking a transaction run inside the caller's `write` (or `read`) and never commit;
/// whoever commits a transaction that recorded a change wakes the dispatchers (``Store/write(_:)``
/// does, or ``OutboxRepository/notifyEnqueued()``). Methods without one open their own
/// transaction and wake the dispatchers themselves.
public struct ContextRepository: Sendable {
    /// A Live Activity lives at most 8 hours (`docs/devices.md`); the deadline is start + this.
    public static let lifetime: TimeInterval = 8 * 60 * 60

    public let database: any Database
    /// Where ``recordChange(key:now:note:in:)`` enqueues its sync rows.
    public let outbox: OutboxRepository

    public init(database: any Database, outbox: OutboxRepository) {
        self.database = database
        self.outbox = outbox
    }

    // MARK: Writing, inside the caller's transaction

    /// Creates an active context at revision 0 (nothing to push yet), started `now`, deadline
    /// `now + 8 h`. Throws `.alreadyExists` when the key is taken.
    ///
    /// `householdID` is the owner, `nil` for `/v1` contexts; `attributes` and `contentState` are
    /// JSON (`contentState` only for `/v1` contexts). A domain feature then records its first
    /// change with ``recordChange(key:now:note:in:)`` in the same transaction.
    @discardableResult
    public func create(
        key: String, activityType: String, householdID: HouseholdID?, attributes: String, contentState: String?, now: Date,
        in transaction: any SQLTransaction
    ) throws -> ContextRecord {
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO contexts (key, activity_type, household_id, state, rev, attributes, content_state, started_at,
                    deadline_at, last_push_timestamp, updated_at)
                VALUES ($1, $2, $3, 'active', 0, $4, $5, $6, $7, 0, $6)
                ON CONFLICT (key) DO NOTHING
                RETURNING \(ContextRecord.columns)
                """,
                [
                    .text(key), .text(activityType), SQLValue(householdID), .text(attributes), SQLValue(contentState),
                    SQLValue(now), SQLValue(now.addingTimeInterval(Self.lifetime)),
                ]
            )
        else {
            throw StoreError(.alreadyExists, "a context with the key \(key) exists already")
        }
        return try ContextRecord(row: row)
    }

    /// The context's revision, its row held until the caller's transaction ends (PostgreSQL
    /// `FOR UPDATE`: writes of one context by several instances go one after the other; SQLite's
    /// writes are one at a time already). Nil when there is no such context.
    public func lock(key: String, in transaction: any SQLTransaction) throws -> Int? {
        let sql = "SELECT rev FROM contexts WHERE key = $1" + (database.dialect == .postgres ? " FOR UPDATE" : "")
        return try transaction.queryOne(sql, [.text(key)])?.int("rev")
    }

    /// ``lock(key:in:)`` that reads the whole row while it takes it: one round trip for both.
    public func lockedContext(key: String, in transaction: any SQLTransaction) throws -> ContextRecord? {
        let sql = "SELECT \(ContextRecord.columns) FROM contexts WHERE key = $1" + (database.dialect == .postgres ? " FOR UPDATE" : "")
        return try transaction.queryOne(sql, [.text(key)]).map(ContextRecord.init(row:))
    }

    /// Holds the rows of `keys` that exist until the transaction ends (PostgreSQL `FOR UPDATE`, in
    /// key order, so two transactions locking overlapping sets never wait for each other in a
    /// circle; SQLite runs one write at a time anyway).
    public func lock(keys: [String], in transaction: any SQLTransaction) throws {
        try Self.lock(keys: keys, dialect: database.dialect, in: transaction)
    }

    /// ``lock(keys:in:)`` for a repository without a ``ContextRepository`` (the outbox's taking
    /// back of expired leases).
    static func lock(keys: some Collection<String>, dialect: SQLDialect, in transaction: any SQLTransaction) throws {
        guard dialect == .postgres, !keys.isEmpty else { return }
        let placeholders = (1...keys.count).map { "$\($0)" }.joined(separator: ", ")
        _ = try transaction.query(
            "SELECT key FROM contexts WHERE key IN (\(placeholders)) ORDER BY key FOR UPDATE", keys.sorted().map { SQLValue.text($0) })
    }

    /// Records that the context changed: bumps `rev` by one, writes the revision row and makes sure
    /// a due sync row exists (coalesced; none while nobody may follow it, ``syncNeeded(syncWhenEnded:)``),
    /// all in the caller's transaction. Returns the new `rev`.
    ///
    /// Every mutation that changes what the card shows calls this inside its own write
    /// transaction, after its domain writes; if the transaction rolls back, so do the revision and
    /// the sync row. For an ended context the revision still goes up (pull-reconcile sees the
    /// truth) but no sync row is added: after the end nothing more is sent to its activities
    /// (`docs/engine.md`, "Lifecycle"). Throws `.notFound` for an unknown key.
    @discardableResult
    public func recordChange(key: String, now: Date, note: String? = nil, in transaction: any SQLTransaction) throws -> Int {
        try recordedChange(key: key, now: now, note: note, in: transaction).rev
    }

    /// ``recordChange(key:now:note:in:)`` that says whose context it is too.
    public func recordedChange(key: String, now: Date, note: String? = nil, in transaction: any SQLTransaction) throws -> RecordedChange {
        guard let change = try bumpRevision(key: key, now: now, note: note, syncWhenEnded: false, given: nil, in: transaction) else {
            throw StoreError(.notFound, "there is no context \(key)")
        }
        return change
    }

    /// Stores a `/v1` context's state as `given` and records the change, in one statement with
    /// the bump (on PostgreSQL the revision and sync rows too: one round trip,
    /// `docs/performance.md`, "Writes"): only for an active context of `given.activityType` that
    /// no household owns, else nil and nothing changed.
    public func recordGivenState(
        _ given: GivenState, key: String, now: Date, note: String?, in transaction: any SQLTransaction
    ) throws -> RecordedChange? {
        try bumpRevision(key: key, now: now, note: note, syncWhenEnded: false, given: given, in: transaction)
    }

    /// Ends the context: state `ended`, `ended_at`, and a recorded change whose sync row carries
    /// the final snapshot (the dispatcher sends it as the `end` event). Ending an ended context
    /// changes nothing and says so. Throws `.notFound` for an unknown key.
    @discardableResult
    public func end(key: String, now: Date, note: String? = "ended", in transaction: any SQLTransaction) throws -> ContextEndResult {
        let ended = try transaction.execute(
            "UPDATE contexts SET state = 'ended', ended_at = $2 WHERE key = $1 AND state = 'active'",
            [.text(key), SQLValue(now)]
        )
        guard ended == 1 else {
            guard let rev = try revision(key: key, in: transaction) else {
                throw StoreError(.notFound, "there is no context \(key)")
            }
            return ContextEndResult(rev: rev, alreadyEnded: true)
        }
        guard let change = try bumpRevision(key: key, now: now, note: note, syncWhenEnded: true, given: nil, in: transaction) else {
            throw StoreError(.notFound, "there is no context \(key)")
        }
        return ContextEndResult(rev: change.rev, alreadyEnded: false)
    }

    /// Makes an ended context active again (a domain's new session starts a new card): started
    /// `now` with a new 8-hour deadline, nothing recorded as sent; the revision keeps counting
    /// up. The engine retires what belonged to the previous card in the same transaction
    /// (`Engine` write, `reopen`). Throws `.notFound`.
    public func reopen(key: String, now: Date, in transaction: any SQLTransaction) throws {
        try updateOne(
            """
            UPDATE contexts SET state = 'active', ended_at = NULL, started_at = $2, deadline_at = $3, updated_at = $2,
                last_sent_state = NULL, last_sent_at = NULL
            WHERE key = $1
            """,
            [.text(key), SQLValue(now), SQLValue(now.addingTimeInterval(Self.lifetime))], key: key, in: transaction
        )
    }

    /// A new run of an active context that has no card on any phone (e.g. a shopping week whose
    /// items were added from home, and now a trip starts): started `now` with a new 8-hour
    /// deadline. Throws `.notFound`.
    public func restartLifetime(key: String, now: Date, in transaction: any SQLTransaction) throws {
        try updateOne(
            "UPDATE contexts SET started_at = $2, deadline_at = $3, updated_at = $2 WHERE key = $1 AND state = 'active'",
            [.text(key), SQLValue(now), SQLValue(now.addingTimeInterval(Self.lifetime))], key: key, in: transaction
        )
    }

    /// The `aps.timestamp` for the next push of the context: `max(now in whole seconds, last + 1)`,
    /// stored as the new last. Strictly increasing per context even within one second (`docs/engine.md`:
    /// "a second-resolution clock can tie, so bump it"); ahead of real time only by as many pushes
    /// as were made in the same second. Throws `.notFound` for an unknown key.
    ///
    /// Take it in the same transaction as the snapshot read that the push carries (a write
    /// transaction sees a consistent state), so a later timestamp never carries an older state.
    public func nextPushTimestamp(key: String, now: Date, in transaction: any SQLTransaction) throws -> Int {
        let seconds = Int64((now.timeIntervalSince1970).rounded(.down))
        guard
            let row = try transaction.queryOne(
                """
                UPDATE contexts SET last_push_timestamp =
                    CASE WHEN $2 > last_push_timestamp THEN $2 ELSE last_push_timestamp + 1 END
                WHERE key = $1
                RETURNING last_push_timestamp
                """,
                [.text(key), .integer(seconds)]
            )
        else {
            throw StoreError(.notFound, "there is no context \(key)")
        }
        return try row.int("last_push_timestamp")
    }

    /// Holds the context's next whole-fan-out push back until `date` (push spacing): a change
    /// recorded before then enqueues its sync row due at `date`, and changes meanwhile coalesce
    /// into that row. The dispatcher calls it when it renders a push. Throws `.notFound` for an
    /// unknown key.
    public func holdNextPush(key: String, until date: Date, in transaction: any SQLTransaction) throws {
        try updateOne("UPDATE contexts SET next_push_at = $2 WHERE key = $1", [.text(key), SQLValue(date)], key: key, in: transaction)
    }

    /// Records the content state a whole-fan-out push carries, rendered `now` (see
    /// ``ContextRecord/lastSentState``). Throws `.notFound` for an unknown key.
    public func recordSent(key: String, contentState: String, now: Date, in transaction: any SQLTransaction) throws {
        try updateOne(
            "UPDATE contexts SET last_sent_state = $2, last_sent_at = $3 WHERE key = $1", [.text(key), .text(contentState), SQLValue(now)],
            key: key, in: transaction
        )
    }

    /// Sets (or with `nil` removes) the `relevance-score` sent with the context's updates; record a
    /// change too when it should go out now. Throws `.notFound` for an unknown key.
    public func setRelevanceScore(key: String, _ score: Double?, now: Date, in transaction: any SQLTransaction) throws {
        let value: SQLValue = score.map { .real($0) } ?? .null
        try updateOne(
            "UPDATE contexts SET relevance_score = $2, updated_at = $3 WHERE key = $1", [.text(key), value, SQLValue(now)],
            key: key, in: transaction
        )
    }

    /// Clears the alert and priority hints once a push rendered at `sentRev` carried them; hints
    /// set at a later revision stay for the next push. `sentAlert`, the alert that push carried,
    /// is cleared whatever revision the hints have moved to since: a later change that set only a
    /// priority (which moves ``ContextRecord/hintRev``) does not make it go a second time, and the
    /// same alert set again meanwhile counts as gone too. `false` when nothing was cleared.
    @discardableResult
    public func clearHints(key: String, sentRev: Int, sentAlert: String? = nil, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            """
            UPDATE contexts SET
                alert = CASE WHEN hint_rev <= $2 OR alert = $3 THEN NULL ELSE alert END,
                priority_hint = CASE WHEN hint_rev <= $2 THEN NULL ELSE priority_hint END,
                hint_rev = CASE WHEN hint_rev <= $2 OR (alert = $3 AND priority_hint IS NULL) THEN NULL ELSE hint_rev END
            WHERE key = $1 AND (hint_rev <= $2 OR alert = $3)
            """,
            [.text(key), SQLValue(sentRev), SQLValue(sentAlert)]
        ) == 1
    }

    // MARK: Private

    private func bumpRevision(
        key: String, now: Date, note: String?, syncWhenEnded: Bool, given: GivenState?, in transaction: any SQLTransaction
    ) throws -> RecordedChange? {
        var parameters: [SQLValue] = [.text(key), SQLValue(now)]
        func parameter(_ value: SQLValue) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        var assignments = "rev = rev + 1, updated_at = $2"
        if let given {
            assignments += ", attributes = \(parameter(.text(given.attributes))), content_state = \(parameter(.text(given.contentState)))"
            assignments += ", relevance_score = \(parameter(given.relevanceScore.map { .real($0) } ?? .null))"
            if given.alert != nil || given.priority != nil {
                // `rev + 1`: assignments read the row as it was, so this is the revision recorded now.
                assignments += ", alert = COALESCE(\(parameter(SQLValue(given.alert))), alert)"
                assignments += ", priority_hint = COALESCE(\(parameter(SQLValue(given.priority))), priority_hint), hint_rev = rev + 1"
            }
        }
        var condition = "key = $1"
        if let given { condition += " AND activity_type = \(parameter(.text(given.activityType))) AND state = 'active' AND household_id IS NULL" }
        let update = """
            UPDATE contexts SET \(assignments) WHERE \(condition)
            RETURNING rev, next_push_at, activity_type, household_id, \(Self.syncNeeded(syncWhenEnded: syncWhenEnded)) AS sync_needed
            """
        let row: Row?
        if database.dialect == .postgres {
            // One statement: the revision row and the coalesced sync row are written from the
            // bumped row (``syncNeeded(syncWhenEnded:)``).
            // It ends in the revision's INSERT, so the transaction counts as one that changed rows.
            let noteParameter = parameter(SQLValue(note))
            row = try transaction.queryOne(
                """
                WITH bumped AS (\(update)),
                sync AS (
                    INSERT INTO outbox (kind, context_key, target, status, attempts, due_at, created_at, updated_at)
                    SELECT 'sync', $1, NULL, 'due', 0, GREATEST($2::bigint, next_push_at), $2::bigint, $2::bigint FROM bumped
                    WHERE sync_needed
                    \(OutboxRepository.syncCoalescing)
                    RETURNING id
                )
                INSERT INTO context_revisions (context_key, rev, changed_at, note)
                SELECT $1, rev, $2::bigint, \(noteParameter)::text FROM bumped
                RETURNING rev, (SELECT activity_type FROM bumped) AS activity_type, (SELECT household_id FROM bumped) AS household_id,
                    (SELECT COUNT(*) FROM sync) AS synced
                """, parameters)
        } else {
            row = try transaction.queryOne(update, parameters)
        }
        guard let row else { return nil }
        var change = RecordedChange(
            rev: try row.int("rev"), activityType: try row.string("activity_type"),
            householdID: try row.optionalInt("household_id").map { HouseholdID($0) })
        if database.dialect == .postgres {
            change.enqueuedSync = try row.int("synced") > 0
        } else {
            try transaction.execute(
                "INSERT INTO context_revisions (context_key, rev, changed_at, note) VALUES ($1, $2, $3, $4)",
                [.text(key), SQLValue(change.rev), SQLValue(now), SQLValue(note)]
            )
            change.enqueuedSync = try row.int("sync_needed") != 0
            if change.enqueuedSync {
                let nextPushAt = SQLValue.date(milliseconds: try row.int64("next_push_at"))
                try outbox.enqueueSync(contextKey: key, now: now, dueAt: max(now, nextPushAt), in: transaction)
            }
        }
        return change
    }

    /// Whether a bumped context gets a sync row, read in the bump's RETURNING (the row as the
    /// update left it, so a follower committed while the update waited for the row is counted):
    /// an active one unless nobody may follow it (its quiet epoch is its follow epoch:
    /// ``OutboxRepository/claimForSending(owner:now:lease:limit:reclaiming:)`` found nobody, and
    /// no token or channel came since), any other only when it just ended.
    static func syncNeeded(syncWhenEnded: Bool) -> String {
        let active = "state = 'active' AND quiet_epoch IS DISTINCT FROM follow_epoch"
        return syncWhenEnded ? "(\(active)) OR state <> 'active'" : active
    }

    private func updateOne(_ sql: String, _ parameters: [SQLValue], key: String, in transaction: any SQLTransaction) throws {
        guard try transaction.execute(sql, parameters) == 1 else {
            throw StoreError(.notFound, "there is no context \(key)")
        }
    }
}
