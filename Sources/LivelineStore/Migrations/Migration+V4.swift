extension Migration {
    /// Lifecycle, starts, budgets, channels and the inbox (`docs/engine.md`, "Budgets and priority",
    /// "Lifecycle", "Broadcast channels", "Notify").
    ///
    /// - `contexts.last_sent_state` / `last_sent_at`: the content state of the last whole-fan-out
    ///   push and when it was rendered (materiality is judged against it).
    /// - `push_tokens.suspect_at`: a push-to-start token whose start was accepted but no
    ///   `la-update` token followed in time.
    /// - `la_starts`: one row per (context, device); a device is named by its household and device
    ///   id (device ids are chosen by apps, so another household's cannot collide): a start is
    ///   sent at most once per device (idempotency), with its outcome, whether it went with a
    ///   channel, and whether the device answered (update token or receipt).
    /// - `la_dismissals`: a user swiped the context's activity away; no new start for them unless asked.
    /// - `la_receipts`: the newest revision each device (household + device id) reported rendering.
    /// - `channels`: broadcast channels created through the management API, by owner.
    /// - `notifications`: the inbox; `dedupe_key` unique per user.
    static let v4 = Migration(
        version: 4, name: "lifecycle, starts, receipts, channels, notifications",
        sql: """
            ALTER TABLE contexts ADD COLUMN last_sent_state TEXT;
            ALTER TABLE contexts ADD COLUMN last_sent_at BIGINT;
            ALTER TABLE push_tokens ADD COLUMN suspect_at BIGINT;
            ALTER TABLE push_tokens ADD COLUMN suspect_reason TEXT;
            CREATE INDEX push_tokens_context ON push_tokens (context_key, kind, environment) WHERE status = 'active';
            CREATE INDEX push_tokens_start ON push_tokens (kind, attributes_type, environment, user_id) WHERE status = 'active';
            CREATE TABLE la_starts (
                id {{primaryKey}},
                context_key TEXT NOT NULL REFERENCES contexts (key),
                household_id BIGINT NOT NULL REFERENCES households (id),
                device_id TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users (id),
                token_id BIGINT NOT NULL REFERENCES push_tokens (id),
                status TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'failed', 'skipped')),
                reason TEXT,
                via_channel INTEGER NOT NULL DEFAULT 0 CHECK (via_channel IN (0, 1)),
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                sent_at BIGINT,
                update_token_at BIGINT,
                suspect_at BIGINT,
                UNIQUE (context_key, household_id, device_id)
            );
            CREATE INDEX la_starts_device ON la_starts (household_id, device_id, created_at);
            CREATE INDEX la_starts_waiting ON la_starts (status, update_token_at, sent_at);
            CREATE TABLE la_dismissals (
                context_key TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users (id),
                dismissed_at BIGINT NOT NULL,
                PRIMARY KEY (context_key, user_id)
            );
            CREATE TABLE la_receipts (
                context_key TEXT NOT NULL,
                household_id BIGINT NOT NULL REFERENCES households (id),
                device_id TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users (id),
                rev BIGINT NOT NULL,
                received_at BIGINT NOT NULL,
                PRIMARY KEY (context_key, household_id, device_id)
            );
            CREATE TABLE channels (
                id {{primaryKey}},
                channel_id TEXT NOT NULL UNIQUE,
                purpose TEXT NOT NULL,
                owner_kind TEXT NOT NULL CHECK (owner_kind IN ('context', 'household')),
                owner TEXT NOT NULL,
                storage_policy INTEGER NOT NULL CHECK (storage_policy IN (0, 1)),
                environment TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('active', 'deleted')),
                created_at BIGINT NOT NULL,
                deleted_at BIGINT
            );
            CREATE INDEX channels_owner ON channels (owner_kind, owner, status);
            CREATE TABLE notifications (
                id {{primaryKey}},
                user_id BIGINT NOT NULL REFERENCES users (id),
                title TEXT NOT NULL,
                body TEXT,
                icon TEXT,
                link TEXT,
                dedupe_key TEXT NOT NULL,
                resolved INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
                read_at BIGINT,
                created_at BIGINT NOT NULL,
                UNIQUE (user_id, dedupe_key)
            );
            CREATE INDEX notifications_user ON notifications (user_id, created_at);
            """)
}
