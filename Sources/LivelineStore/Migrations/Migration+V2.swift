extension Migration {
    /// Contexts, their revisions, the transactional outbox and the delivery log (`docs/engine.md`,
    /// "Contexts, revisions, snapshots" and "The transactional outbox and the dispatcher").
    ///
    /// - `contexts.rev` starts at 0 and only ever goes up by one per change (``ContextRepository``);
    ///   `last_push_timestamp` is the last `aps.timestamp` handed out for the context, in seconds.
    ///   `alert` and `priority_hint` are hints for the next push, set at revision `hint_rev`.
    /// - `outbox_sync_due` keeps at most one *due* sync row per context and target (`''` standing
    ///   for the whole fan-out): that is the coalescing. A claimed row is `leased`, so a change
    ///   committed while it is in flight inserts a new due row. `idempotency_key` makes a message
    ///   enqueued twice one row.
    /// - `deliveries` names a token by its `push_tokens.id` and a channel by its id, never by the
    ///   device token.
    ///
    /// `DOUBLE PRECISION` rather than `REAL`: PostgreSQL's `REAL` is 4 bytes; SQLite gives both the
    /// REAL affinity.
    static let v2 = Migration(
        version: 2, name: "contexts, revisions, outbox, deliveries",
        sql: """
            CREATE TABLE contexts (
                key TEXT PRIMARY KEY,
                activity_type TEXT NOT NULL,
                household_id BIGINT REFERENCES households (id),
                state TEXT NOT NULL CHECK (state IN ('active', 'ended')),
                rev BIGINT NOT NULL CHECK (rev >= 0),
                attributes TEXT NOT NULL,
                content_state TEXT,
                alert TEXT,
                priority_hint INTEGER,
                hint_rev BIGINT,
                relevance_score DOUBLE PRECISION,
                channel_id TEXT,
                started_at BIGINT NOT NULL,
                deadline_at BIGINT NOT NULL,
                ended_at BIGINT,
                last_push_timestamp BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            );
            CREATE INDEX contexts_state_deadline ON contexts (state, deadline_at);
            CREATE INDEX contexts_household ON contexts (household_id);
            CREATE TABLE context_revisions (
                context_key TEXT NOT NULL REFERENCES contexts (key),
                rev BIGINT NOT NULL,
                changed_at BIGINT NOT NULL,
                note TEXT,
                PRIMARY KEY (context_key, rev)
            );
            CREATE TABLE outbox (
                id {{primaryKey}},
                kind TEXT NOT NULL CHECK (kind IN ('sync', 'message')),
                context_key TEXT,
                target TEXT,
                idempotency_key TEXT UNIQUE,
                payload {{blob}},
                headers TEXT,
                status TEXT NOT NULL CHECK (status IN ('due', 'leased', 'done', 'dead')),
                attempts INTEGER NOT NULL DEFAULT 0,
                due_at BIGINT NOT NULL,
                lease_owner TEXT,
                lease_until BIGINT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                last_error TEXT,
                CHECK (kind = 'message' OR context_key IS NOT NULL)
            );
            CREATE UNIQUE INDEX outbox_sync_due ON outbox (context_key, COALESCE(target, ''))
                WHERE kind = 'sync' AND status = 'due';
            CREATE INDEX outbox_status_due ON outbox (status, due_at);
            CREATE INDEX outbox_context ON outbox (context_key, status);
            CREATE TABLE deliveries (
                id {{primaryKey}},
                outbox_id BIGINT,
                context_key TEXT,
                rev BIGINT,
                target_kind TEXT NOT NULL CHECK (target_kind IN ('token', 'channel')),
                target TEXT NOT NULL,
                apns_id TEXT,
                status INTEGER NOT NULL,
                reason TEXT,
                priority INTEGER NOT NULL,
                latency_ms DOUBLE PRECISION NOT NULL,
                attempted_at BIGINT NOT NULL,
                note TEXT
            );
            CREATE INDEX deliveries_context ON deliveries (context_key, attempted_at);
            """)
}
