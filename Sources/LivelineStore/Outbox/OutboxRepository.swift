import Foundation

/// The transactional outbox: sync and message rows written in the mutation's own transaction,
/// claimed by dispatchers with a lease, completed, retried or dead-lettered.
///
/// Rules from `docs/engine.md`, "The transactional outbox and the dispatcher":
/// - A mutation writes its domain rows, bumps `rev` and inserts a sync row in **one** transaction
///   (``ContextRepository/recordChange(key:now:note:in:)``), so a crash after commit loses
///   nothing and a crash before commit changes nothing. Not for a context a claim found nobody
///   following (`quiet_epoch = follow_epoch`): it sends nothing, so it gets no row until it may
///   have a follower again (``claimForSending(owner:now:lease:limit:reclaiming:)``).
/// - **Coalescing**: at most one *due* sync row per (context, target) (the partial unique index
///   `outbox_sync_due`); more changes before the claim add nothing. A claimed row is `leased`, so
///   a change committed while its push is in flight inserts a new due row and goes out as well.
/// - **Crash safety**: once a change has committed, a due or leased sync row for its context exists
///   until a dispatcher completes (or dead-letters) a row it claimed *after* that commit (a quiet
///   context's change excepted, above). A leased row whose dispatcher died comes back when its
///   lease runs out (``claim(owner:now:lease:limit:)``).
/// - Messages are rendered when enqueued and stored with an idempotency key: enqueuing the same
///   key again adds nothing.
/// - Delivery is at-least-once: a row may be sent again after a lease expired mid-send.
///
/// Waking dispatchers: ``enqueued`` is bumped by whoever commits. Methods here that take a
/// transaction cannot know when (or whether) it commits, so the caller bumps: ``Store/write(_:)``
/// does it after every committed write, or call ``notifyEnqueued()`` after your own
/// `database.write`. Dispatchers should also poll with a timeout (another process's rows).
public struct OutboxRepository: Sendable {
    public let database: any Database
    /// Bumped after a transaction that may have enqueued rows committed; dispatchers wait on it.
    public let enqueued: ChangeSignal

    public init(database: any Database, enqueued: ChangeSignal = ChangeSignal()) {
        self.database = database
        self.enqueued = enqueued
    }

    /// Wakes the dispatchers: call after committing a transaction that enqueued rows.
    public func notifyEnqueued() {
        enqueued.bump()
    }

    // MARK: Enqueuing, inside the caller's transaction

    /// Makes sure a due sync row exists for `contextKey` and `target` (`nil`: the whole fan-out)
    /// and returns its id.
    ///
    /// Coalesced: when a due row exists already, no row is added; its `due_at` moves to the earlier
    /// of the two, so a fresh change is not held back by a retry's backoff. Used by
    /// ``ContextRepository/recordChange(key:now:note:in:)`` and for the retry of one target.
    @discardableResult
    public func enqueueSync(
        contextKey: String, target: OutboxTarget? = nil, now: Date, dueAt: Date? = nil, in transaction: any SQLTransaction
    ) throws -> Int {
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO outbox (kind, context_key, target, status, attempts, due_at, created_at, updated_at)
                VALUES ('sync', $1, $2, 'due', 0, $3, $4, $4)
                \(Self.syncCoalescing)
                RETURNING id
                """,
                [.text(contextKey), SQLValue(target?.rawValue), SQLValue(dueAt ?? now), SQLValue(now)]
            )
        else {
            throw StoreError(.database, "enqueuing a sync row returned no id")
        }
        return try row.int("id")
    }

    /// How a sync row joins the due one of its context and target (``enqueueSync(contextKey:target:now:dueAt:in:)``).
    /// The conflict target names the partial unique index `outbox_sync_due` (same text on SQLite
    /// ≥ 3.35 and PostgreSQL, which infers the index from columns and predicate).
    static let syncCoalescing = """
        ON CONFLICT (context_key, COALESCE(target, '')) WHERE kind = 'sync' AND status = 'due'
        DO UPDATE SET due_at = CASE WHEN excluded.due_at < outbox.due_at THEN excluded.due_at ELSE outbox.due_at END,
            updated_at = excluded.updated_at
        """

    /// Records that one target of a context's fan-out can never be sent (a permanent APNs
    /// answer): a dead sync row for that target, with the reason, so it shows as a dead letter
    /// in the timeline like a row that failed on its own.
    @discardableResult
    public func recordDeadTarget(
        contextKey: String, target: OutboxTarget, reason: String, now: Date, in transaction: any SQLTransaction
    ) throws -> Int {
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO outbox (kind, context_key, target, status, attempts, due_at, created_at, updated_at, last_error)
                VALUES ('sync', $1, $2, 'dead', 1, $3, $3, $3, $4)
                RETURNING id
                """,
                [.text(contextKey), .text(target.rawValue), SQLValue(now), .text(reason)]
            )
        else {
            throw StoreError(.database, "recording a dead target returned no id")
        }
        return try row.int("id")
    }

    /// Enqueues a rendered message once per `idempotencyKey`; `false` (and nothing written) when
    /// a row with that key exists already, whatever its status.
    ///
    /// `headers` is the push headers as JSON, `payload` the body exactly as it will be sent
    /// (`docs/engine.md`: messages are rendered when enqueued; keys such as `start:{contextKey}:{deviceToken}`,
    /// `notify:{dedupeKey}:{token}`).
    @discardableResult
    public func enqueueMessage(
        idempotencyKey: String, contextKey: String?, target: OutboxTarget?, headers: String?, payload: [UInt8],
        now: Date, dueAt: Date? = nil, in transaction: any SQLTransaction
    ) throws -> Bool {
        try !transaction.query(
            """
            INSERT INTO outbox (kind, context_key, target, idempotency_key, payload, headers, status, attempts, due_at,
                created_at, updated_at)
            VALUES ('message', $1, $2, $3, $4, $5, 'due', 0, $6, $7, $7)
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING id
            """,
            [
                SQLValue(contextKey), SQLValue(target?.rawValue), .text(idempotencyKey), .blob(payload), SQLValue(headers),
                SQLValue(dueAt ?? now), SQLValue(now),
            ]
        ).isEmpty
    }

    /// Whether the message row with `idempotencyKey` is still waiting to be claimed (`due`), in
    /// the caller's transaction: a change then rides on it (a widget push, `docs/engine.md`,
    /// "Widget pushes").
    public func isDue(idempotencyKey: String, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.queryOne(
            "SELECT status FROM outbox WHERE idempotency_key = $1", [.text(idempotencyKey)]
        )?.string("status") == OutboxStatus.due.rawValue
    }

    // MARK: Dispatching

    /// Claims up to `limit` rows whose time has come, oldest `due_at` first, leased to `owner`
    /// until `now + lease`, in one write transaction.
    ///
    /// First, rows whose lease ran out (`lease_until < now`: their dispatcher died or hung) are
    /// taken back, each with one more attempt: a sync row for which a due row of the same
    /// (context, target) exists is marked `done` as superseded (the due row sends the newer state),
    /// any other row becomes due again. Two claimers never get the same row: SQLite runs write
    /// transactions one at a time, across processes too (`BEGIN IMMEDIATE`); PostgreSQL uses
    /// `FOR UPDATE SKIP LOCKED` and keeps each context with one dispatcher (``claimOnPostgres``). `owner` must be unique per dispatcher
    /// (e.g. host, process id and a random part): ownership checks rely on it. `reclaiming: false`
    /// skips taking back expired leases (a dispatcher that did so a moment ago: the rows of a
    /// dead dispatcher can wait a second more, the look costs every claim a scan of the leased rows).
    public func claim(owner: String, now: Date, lease: TimeInterval, limit: Int, reclaiming: Bool = true) throws -> [OutboxRow] {
        guard limit > 0 else { return [] }
        return try database.write { transaction in
            try claim(owner: owner, now: now, lease: lease, limit: limit, reclaiming: reclaiming, completing: false, in: transaction)
        }
    }

    /// What a dispatcher's claim gave it (``claimForSending(owner:now:lease:limit:reclaiming:)``).
    public struct Claim: Sendable {
        /// The rows to send, oldest `due_at` first.
        public var rows: [OutboxRow]
        /// How many rows it claimed and completed at once, having nothing to send.
        public var completed: Int
    }

    /// ``claim(owner:now:lease:limit:reclaiming:)`` for a dispatcher: in the same transaction, the
    /// claimed fan-outs of active contexts that nobody follows (no active `la-update` token has
    /// their key, and no channel is linked to them) are marked `done` and not returned, since
    /// they send nothing. So a change nobody follows costs the dispatcher its share of one write
    /// per batch, not a read and a write of its own. A token registered later catches up by a row
    /// of its own (`docs/engine.md`, "Fan-out for a sync"); such a row, a one-target row and the end of a
    /// context are returned as they are. The lease's statement does it: such a row goes from due
    /// to done in one step.
    public func claimForSending(owner: String, now: Date, lease: TimeInterval, limit: Int, reclaiming: Bool = true) throws -> Claim {
        guard limit > 0 else { return Claim(rows: [], completed: 0) }
        let rows = try database.write { transaction in
            try claim(owner: owner, now: now, lease: lease, limit: limit, reclaiming: reclaiming, completing: true, in: transaction)
        }
        let sending = rows.filter { $0.status != .done }
        return Claim(rows: sending, completed: rows.count - sending.count)
    }

    /// The claimed row sends nothing: a fan-out of an active context that no active `la-update`
    /// token follows and no channel is linked to (of the row being updated, `outbox`).
    static let followedByNobody = """
        (outbox.kind = 'sync' AND outbox.target IS NULL
            AND EXISTS (SELECT 1 FROM contexts WHERE contexts.key = outbox.context_key AND contexts.state = 'active')
            AND NOT EXISTS (
                SELECT 1 FROM push_tokens WHERE push_tokens.context_key = outbox.context_key
                    AND push_tokens.kind = 'la-update' AND push_tokens.status = 'active')
            AND NOT EXISTS (SELECT 1 FROM context_channels WHERE context_channels.context_key = outbox.context_key))
        """

    /// The claim's assignments: leased to `$1` until `$2` at `$3`; `completing`, a row that sends
    /// nothing (``followedByNobody``) is done at once instead.
    static func leaseAssignments(completing: Bool) -> String {
        guard completing else { return "status = 'leased', lease_owner = $1, lease_until = $2, updated_at = $3" }
        return """
            status = CASE WHEN \(followedByNobody) THEN 'done' ELSE 'leased' END, lease_owner = $1,
            lease_until = CASE WHEN \(followedByNobody) THEN NULL ELSE CAST($2 AS BIGINT) END, updated_at = $3
            """
    }

    /// ``claim(owner:now:lease:limit:reclaiming:)`` in the caller's transaction.
    private func claim(
        owner: String, now: Date, lease: TimeInterval, limit: Int, reclaiming: Bool, completing: Bool, in transaction: any SQLTransaction
    ) throws -> [OutboxRow] {
        if reclaiming { try reclaimExpiredLeases(now: now, in: transaction) }
        let claimed: [Row]
        switch database.dialect {
        case .sqlite:
            claimed = try transaction.query(
                Self.sqliteClaim(completing: completing), [.text(owner), SQLValue(now.addingTimeInterval(lease)), SQLValue(now), SQLValue(limit)])
        case .postgres:
            claimed = try claimOnPostgres(owner: owner, now: now, lease: lease, limit: limit, completing: completing, in: transaction)
        }
        let rows = try claimed.map(OutboxRow.init(row:))
        if completing { try markQuiet(claimed, rows, in: transaction) }
        // RETURNING gives no order.
        return rows.sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
    }

    /// What the claim's RETURNING adds when it completes rows: for a row it completed, the follow
    /// epoch of the row's context, read in the same snapshot as ``followedByNobody``.
    static let seenFollowEpoch = """
        CASE WHEN outbox.status = 'done' THEN (SELECT follow_epoch FROM contexts WHERE contexts.key = outbox.context_key) END AS follow_epoch
        """

    /// Records on each context whose fan-out the claim completed that nobody follows it as of the
    /// epoch the claim saw (``markQuiet(seen:in:)``).
    private func markQuiet(_ claimed: [Row], _ rows: [OutboxRow], in transaction: any SQLTransaction) throws {
        var seen: [String: Int64] = [:]
        // ``seenFollowEpoch`` is set for the completed rows only.
        for (raw, row) in zip(claimed, rows) {
            if let key = row.contextKey, let epoch = try raw.optionalInt64("follow_epoch") { seen[key] = epoch }
        }
        try markQuiet(seen: seen, in: transaction)
    }

    /// Marks each context of `seen` quiet at the follow epoch a claim saw it at, so its next
    /// changes write no sync row (``ContextRepository``'s `syncNeeded`). Only while that epoch is
    /// still the context's: a token or channel that came since raised it. On PostgreSQL a context
    /// row another transaction holds is skipped, never waited for (a change holding it may be
    /// waiting for a row this claim holds); its next change's row is completed again.
    func markQuiet(seen: [String: Int64], in transaction: any SQLTransaction) throws {
        let pairs = seen.sorted { $0.key < $1.key }
        guard !pairs.isEmpty else { return }
        switch database.dialect {
        case .sqlite:
            for (key, epoch) in pairs {
                try transaction.execute(
                    "UPDATE contexts SET quiet_epoch = $2 WHERE key = $1 AND follow_epoch = $2 AND quiet_epoch IS NOT $2",
                    [.text(key), SQLValue(epoch)])
            }
        case .postgres:
            try transaction.execute(
                """
                UPDATE contexts SET quiet_epoch = seen.epoch
                FROM unnest(CAST($1 AS TEXT[]), CAST($2 AS BIGINT[])) AS seen(key, epoch)
                WHERE contexts.key = seen.key AND contexts.follow_epoch = seen.epoch
                    AND contexts.quiet_epoch IS DISTINCT FROM seen.epoch
                    AND contexts.key IN (
                        SELECT key FROM contexts WHERE key = ANY(CAST($1 AS TEXT[])) FOR NO KEY UPDATE SKIP LOCKED)
                """,
                [.postgresTextArray(pairs.map(\.key)), .text("{" + pairs.map { String($0.value) }.joined(separator: ",") + "}")])
        }
    }

    /// The claim of several instances on one PostgreSQL, in three statements so that each locks
    /// only what it may claim (`docs/engine.md`, "Storage"):
    /// 1. a bounded set of due rows, oldest first, row-locked (`FOR UPDATE SKIP LOCKED`: rows
    ///    another claimer holds are skipped);
    /// 2. for their contexts, an advisory lock per schema and context, tried without waiting (one
    ///    another instance is claiming right now is left to it) — only these few, never one per
    ///    due context (a backlog of thousands would fill the lock table);
    /// 3. the lease, in a statement of its own (so it sees every lease committed before the locks
    ///    were taken), of the rows whose context no other dispatcher holds a live lease on.
    /// One context's syncs thus go out from one instance at a time, different contexts in parallel.
    private func claimOnPostgres(
        owner: String, now: Date, lease: TimeInterval, limit: Int, completing: Bool, in transaction: any SQLTransaction
    ) throws
        -> [Row]
    {
        let candidates = try transaction.query(
            """
            SELECT id, kind, context_key FROM outbox WHERE status = 'due' AND due_at <= $1
            ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
            """,
            [SQLValue(now), SQLValue(limit * 2 + 8)]
        )
        var keys: Set<String> = []
        for row in candidates where try row.string("kind") == "sync" {
            if let key = try row.optionalString("context_key") { keys.insert(key) }
        }
        // Every context's lock tried in one statement (a try never waits, so the order is free).
        var locked: Set<String> = []
        if !keys.isEmpty {
            let tried = try transaction.query(
                """
                SELECT key FROM unnest(CAST($1 AS TEXT[])) AS candidate(key)
                WHERE pg_try_advisory_xact_lock(72615, hashtext(current_schema() || ':' || key))
                """, [.postgresTextArray(keys.sorted())])
            locked = Set(try tried.map { try $0.string("key") })
        }
        var chosen: [Int] = []
        for row in candidates {
            let isSync = try row.string("kind") == "sync"
            if let key = try row.optionalString("context_key"), isSync, !locked.contains(key) { continue }
            chosen.append(try row.int("id"))
        }
        guard !chosen.isEmpty else { return [] }
        return try transaction.query(
            """
            UPDATE outbox SET \(Self.leaseAssignments(completing: completing))
            WHERE id IN (
                SELECT id FROM outbox AS candidate
                WHERE id = ANY(CAST($4 AS BIGINT[])) AND status = 'due'
                    AND (kind <> 'sync' OR NOT EXISTS (
                        SELECT 1 FROM outbox AS held
                        WHERE held.context_key = candidate.context_key AND held.kind = 'sync' AND held.status = 'leased'
                            AND held.lease_until >= $3 AND held.lease_owner <> $1))
                ORDER BY due_at, id LIMIT $5
            )
            RETURNING \(OutboxRow.columns)\(completing ? ", " + Self.seenFollowEpoch : "")
            """,
            [
                .text(owner), SQLValue(now.addingTimeInterval(lease)), SQLValue(now),
                .text("{" + chosen.map(String.init).joined(separator: ",") + "}"), SQLValue(limit),
            ]
        )
    }

    /// The SQLite claim: it has one writer at a time (across processes too), so a plain
    /// subquery is safe.
    static func sqliteClaim(completing: Bool) -> String {
        """
        UPDATE outbox SET \(leaseAssignments(completing: completing))
        WHERE status = 'due' AND id IN (
            SELECT id FROM outbox WHERE status = 'due' AND due_at <= $3 ORDER BY due_at, id LIMIT $4
        )
        RETURNING \(OutboxRow.columns)\(completing ? ", " + seenFollowEpoch : "")
        """
    }

    /// Ends every lease at once, so the next claim takes the rows back as after a crash
    /// (``reclaimExpiredLeases(now:in:)``): a restored database's leases belong to no process
    /// (`liveline restore`, docs/operations.md, "Backups"). The number of rows it ended.
    @discardableResult
    public func expireAllLeases() throws -> Int {
        try database.write { transaction in
            try transaction.execute(
                "UPDATE outbox SET lease_until = $1 WHERE status = 'leased'", [SQLValue(Date(timeIntervalSince1970: 0))])
        }
    }

    /// Takes back rows whose lease ran out, one statement per row, newest first: the supersede
    /// check must see the rows already made due (two expired sync rows of one context and target
    /// would otherwise both become due, which the unique index forbids).
    private func reclaimExpiredLeases(now: Date, in transaction: any SQLTransaction) throws {
        let expired = try transaction.query(
            "SELECT id, kind, context_key FROM outbox WHERE status = 'leased' AND lease_until < $1 ORDER BY id DESC",
            [SQLValue(now)]
        )
        var keys: Set<String> = []
        for row in expired where try row.string("kind") == "sync" {
            if let key = try row.optionalString("context_key") { keys.insert(key) }
        }
        // Held first, in key order (``ContextRepository/lock(keys:in:)``): a change of such a
        // context committing right now (its new due sync row not yet visible) is then seen, and a
        // sync row given back is marked done instead of colliding with it on the one-due-row index.
        try ContextRepository.lock(keys: keys, dialect: database.dialect, in: transaction)
        for row in expired {
            try transaction.execute(
                """
                UPDATE outbox SET
                    status = CASE WHEN \(Self.dueSyncExists) THEN 'done' ELSE 'due' END,
                    last_error = CASE WHEN \(Self.dueSyncExists)
                        THEN '\(OutboxRow.takenBackNote)' || COALESCE(lease_owner, '?') || ' expired; superseded by a newer due row'
                        ELSE '\(OutboxRow.takenBackNote)' || COALESCE(lease_owner, '?') || ' expired' END,
                    attempts = attempts + 1, lease_until = NULL, updated_at = $2
                WHERE id = $1 AND status = 'leased' AND lease_until < $2
                """,
                [SQLValue(try row.int("id")), SQLValue(now)]
            )
        }
    }

    /// On PostgreSQL, waits for (and holds) the context row of outbox row `id` when it is a sync
    /// row: a change of that context committing right now (its new due sync row not yet visible)
    /// is then seen, and the row given back is marked done instead of colliding with it on the
    /// one-due-row index. (A change holds its context row from its revision bump to its commit;
    /// the recording of a batch holds its contexts before, in key order.) SQLite's writes are one
    /// at a time already.
    private func holdContext(ofRow id: Int, in transaction: any SQLTransaction) throws {
        guard database.dialect == .postgres else { return }
        _ = try transaction.query(
            "SELECT key FROM contexts WHERE key = (SELECT context_key FROM outbox WHERE id = $1 AND kind = 'sync') FOR UPDATE", [SQLValue(id)])
    }

    /// True in an `UPDATE outbox` when the row is a sync row and another, due sync row exists for
    /// the same context and target.
    private static let dueSyncExists = """
        outbox.kind = 'sync' AND EXISTS (
            SELECT 1 FROM outbox AS other WHERE other.kind = 'sync' AND other.status = 'due'
            AND other.context_key = outbox.context_key AND COALESCE(other.target, '') = COALESCE(outbox.target, '')
        )
        """

    /// Marks a row `done` after its push was accepted; `false` when `owner` no longer holds it
    /// (its lease expired and another dispatcher took it back).
    @discardableResult
    public func complete(id: Int, owner: String, now: Date) throws -> Bool {
        try database.write { transaction in try complete(id: id, owner: owner, now: now, in: transaction) }
    }

    /// ``complete(id:owner:now:)`` in the caller's transaction (with the records of the push's answer).
    @discardableResult
    public func complete(id: Int, owner: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            """
            UPDATE outbox SET status = 'done', lease_until = NULL, updated_at = $3
            WHERE id = $1 AND status = 'leased' AND lease_owner = $2
            """,
            [SQLValue(id), .text(owner), SQLValue(now)]
        ) == 1
    }

    /// Marks the rows of `ids` that `owner` still holds `done` in one statement (a batch's
    /// accepted pushes, in the caller's transaction); returns those it held.
    public func complete(ids: [Int], owner: String, now: Date, in transaction: any SQLTransaction) throws -> Set<Int> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try transaction.query(
                """
                UPDATE outbox SET status = 'done', lease_until = NULL, updated_at = $3
                WHERE \(database.dialect.isOneOf("id", "$1")) AND status = 'leased' AND lease_owner = $2
                RETURNING id
                """,
                [database.dialect.idList(ids), .text(owner), SQLValue(now)]
            ).map { try $0.int("id") })
    }

    /// Keeps a row `owner` holds leased until `until` (a whole fan-out sent a page at a time
    /// renews its lease with each page's records); `false` when `owner` no longer holds it or its
    /// lease ran out (another dispatcher may have claimed the context's newer rows since).
    @discardableResult
    public func renewLease(id: Int, owner: String, until: Date, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            """
            UPDATE outbox SET lease_until = $3, updated_at = $4
            WHERE id = $1 AND status = 'leased' AND lease_owner = $2 AND lease_until >= $4
            """,
            [SQLValue(id), .text(owner), SQLValue(until), SQLValue(now)]
        ) == 1
    }

    /// Gives a row back for another try at `at` with one more attempt and `error`; `false` when
    /// `owner` no longer holds it.
    ///
    /// A sync row for which a due row of the same context and target exists is marked `done`
    /// instead: that row sends the newer state (and the unique index allows only one due row).
    @discardableResult
    public func retry(id: Int, owner: String, at: Date, error: String, now: Date) throws -> Bool {
        try database.write { transaction in try retry(id: id, owner: owner, at: at, error: error, now: now, in: transaction) }
    }

    /// ``retry(id:owner:at:error:now:)`` in the caller's transaction.
    @discardableResult
    public func retry(id: Int, owner: String, at: Date, error: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try giveBack(id: id, owner: owner, dueAt: at, note: error, countsAnAttempt: true, now: now, in: transaction)
    }

    /// Gives a row back to be sent at `until`, without counting an attempt (a non-material change
    /// waits for its debounce); `false` when `owner` no longer holds it. A sync row for which a due
    /// row of the same context and target exists is marked `done` instead (that row sends the newer
    /// state; the unique index allows only one due row).
    /// In the caller's transaction.
    @discardableResult
    public func postpone(id: Int, owner: String, until: Date, reason: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try giveBack(id: id, owner: owner, dueAt: until, note: reason, countsAnAttempt: false, now: now, in: transaction)
    }

    /// A held row due again at `dueAt` (or done, when a due sync row of its context and target
    /// sends the newer state), with `note` as its last error and one more attempt if it counts.
    private func giveBack(
        id: Int, owner: String, dueAt: Date, note: String, countsAnAttempt: Bool, now: Date, in transaction: any SQLTransaction
    ) throws -> Bool {
        try holdContext(ofRow: id, in: transaction)
        return try transaction.execute(
            """
            UPDATE outbox SET
                status = CASE WHEN \(Self.dueSyncExists) THEN 'done' ELSE 'due' END,
                attempts = attempts + \(countsAnAttempt ? 1 : 0), due_at = $3, last_error = $4, lease_until = NULL, updated_at = $5
            WHERE id = $1 AND status = 'leased' AND lease_owner = $2
            """,
            [SQLValue(id), .text(owner), SQLValue(dueAt), .text(note), SQLValue(now)]
        ) == 1
    }

    /// Moves a row that can never be sent to the dead letters with `reason` (`docs/engine.md`:
    /// "visible in the dashboard"); `false` when `owner` no longer holds it.
    @discardableResult
    public func deadLetter(id: Int, owner: String, reason: String, now: Date) throws -> Bool {
        try database.write { transaction in try deadLetter(id: id, owner: owner, reason: reason, now: now, in: transaction) }
    }

    /// ``deadLetter(id:owner:reason:now:)`` in the caller's transaction.
    @discardableResult
    public func deadLetter(id: Int, owner: String, reason: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            """
            UPDATE outbox SET status = 'dead', last_error = $3, lease_until = NULL, updated_at = $4
            WHERE id = $1 AND status = 'leased' AND lease_owner = $2
            """,
            [SQLValue(id), .text(owner), .text(reason), SQLValue(now)]
        ) == 1
    }

    // MARK: Reading

    /// Counts of due, leased and dead rows and the age of the oldest row whose time has come.
    public func depth(now: Date) throws -> OutboxDepth {
        try database.read { transaction in
            var counts: [String: Int] = [:]
            for row in try transaction.query(
                "SELECT status, COUNT(*) AS n FROM outbox WHERE status IN ('due', 'leased', 'dead') GROUP BY status"
            ) {
                counts[try row.string("status")] = try row.int("n")
            }
            let oldest = try transaction.queryOne(
                "SELECT MIN(due_at) AS oldest FROM outbox WHERE status = 'due' AND due_at <= $1", [SQLValue(now)]
            )?.optionalInt64("oldest")
            return OutboxDepth(
                due: counts["due"] ?? 0, leased: counts["leased"] ?? 0, dead: counts["dead"] ?? 0,
                oldestDueAge: oldest.map { max(0, now.timeIntervalSince(SQLValue.date(milliseconds: $0))) }
            )
        }
    }

    /// Dead letters, newest first: of one context, or of all when `contextKey` is `nil`.
    public func deadLetters(contextKey: String? = nil, limit: Int = 100) throws -> [OutboxRow] {
        try database.read { transaction in
            if let contextKey {
                try deadLetters(contextKey: contextKey, limit: limit, in: transaction)
            } else {
                try transaction.query(
                    "SELECT \(OutboxRow.columns) FROM outbox WHERE status = 'dead' ORDER BY updated_at DESC, id DESC LIMIT $1",
                    [SQLValue(limit)]
                ).map(OutboxRow.init(row:))
            }
        }
    }

    /// The context's dead letters, newest first, in the caller's transaction.
    public func deadLetters(contextKey: String, limit: Int, in transaction: any SQLTransaction) throws -> [OutboxRow] {
        try transaction.query(
            """
            SELECT \(OutboxRow.columns) FROM outbox WHERE context_key = $1 AND status = 'dead'
            ORDER BY updated_at DESC, id DESC LIMIT $2
            """,
            [.text(contextKey), SQLValue(limit)]
        ).map(OutboxRow.init(row:))
    }

    /// The row with `id`, or `nil`.
    public func row(id: Int) throws -> OutboxRow? {
        try database.read { transaction in
            try transaction.queryOne("SELECT \(OutboxRow.columns) FROM outbox WHERE id = $1", [SQLValue(id)])
                .map(OutboxRow.init(row:))
        }
    }

    /// Every row of a context, oldest first (diagnosis, dashboard).
    public func rows(contextKey: String) throws -> [OutboxRow] {
        try database.read { transaction in
            try transaction.query(
                "SELECT \(OutboxRow.columns) FROM outbox WHERE context_key = $1 ORDER BY id", [.text(contextKey)]
            ).map(OutboxRow.init(row:))
        }
    }

    /// Deletes `done` rows last touched before `cutoff` and returns how many. Message rows go too,
    /// so their idempotency keys can be used again afterwards: keep `cutoff` well in the past.
    @discardableResult
    public func purgeDone(before cutoff: Date) throws -> Int {
        try database.write { transaction in
            try transaction.execute("DELETE FROM outbox WHERE status = 'done' AND updated_at < $1", [SQLValue(cutoff)])
        }
    }
}
