extension Migration {
    /// Households, users, device sessions and the push token registry (`docs/engine.md`, "People,
    /// devices, auth" and "Push tokens").
    ///
    /// - `sessions.token_hash` is the hex SHA-256 of a bearer token; the plain token is never stored.
    /// - `push_tokens.slot` is the key a token is registered under (see ``TokenRegistration/slot``);
    ///   the partial unique index keeps one active token per household, environment, kind and slot,
    ///   ended rows stay as history. The token index serves "a token lives in one active slot"
    ///   and the APNs feedback look-ups.
    static let v1 = Migration(
        version: 1, name: "households, users, sessions, push tokens",
        sql: """
            CREATE TABLE households (
                id {{primaryKey}},
                name TEXT NOT NULL UNIQUE,
                locale TEXT NOT NULL DEFAULT 'de',
                created_at BIGINT NOT NULL
            );
            CREATE TABLE users (
                id {{primaryKey}},
                household_id BIGINT NOT NULL REFERENCES households (id),
                name TEXT NOT NULL,
                avatar_tint TEXT NOT NULL,
                emoji TEXT NOT NULL,
                locale TEXT NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX users_household ON users (household_id, id);
            CREATE TABLE sessions (
                id {{primaryKey}},
                user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                token_hash TEXT NOT NULL UNIQUE,
                created_at BIGINT NOT NULL,
                last_seen_at BIGINT NOT NULL
            );
            CREATE INDEX sessions_user ON sessions (user_id);
            CREATE TABLE push_tokens (
                id {{primaryKey}},
                household_id BIGINT NOT NULL REFERENCES households (id),
                user_id BIGINT NOT NULL REFERENCES users (id),
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
                attributes_type TEXT,
                context_key TEXT,
                slot TEXT NOT NULL,
                token TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('active', 'replaced', 'deleted', 'invalid')),
                frequent_pushes_enabled INTEGER NOT NULL CHECK (frequent_pushes_enabled IN (0, 1)),
                first_registered_at BIGINT NOT NULL,
                last_registered_at BIGINT NOT NULL,
                ended_at BIGINT,
                end_reason TEXT
            );
            CREATE UNIQUE INDEX push_tokens_active_slot ON push_tokens (household_id, environment, kind, slot)
                WHERE status = 'active';
            CREATE INDEX push_tokens_token ON push_tokens (environment, kind, token);
            CREATE INDEX push_tokens_user ON push_tokens (user_id, status);
            """)
}
