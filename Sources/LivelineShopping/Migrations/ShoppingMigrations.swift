import LivelineStore

/// The shopping feature's tables, recorded under the name `shopping`. Both were the core's
/// migrations 6 and 7 before features had migrations of their own.
enum ShoppingMigrations {
    static let all = [tables, openSessionsIndex]

    /// A household's items per week, the chronology of tracked actions (the card's story comes
    /// from its latest entry), and shopping sessions (presence with a heartbeat).
    static let tables = Migration(
        version: 1, name: "shopping: items, events, sessions", formerCoreVersion: 6,
        sql: """
            CREATE TABLE shopping_items (
                id {{primaryKey}},
                household_id BIGINT NOT NULL REFERENCES households (id),
                week TEXT NOT NULL,
                label TEXT NOT NULL,
                price DOUBLE PRECISION,
                position BIGINT NOT NULL,
                done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
                added_by BIGINT REFERENCES users (id),
                added_at BIGINT NOT NULL,
                checked_by BIGINT REFERENCES users (id),
                checked_at BIGINT
            );
            CREATE INDEX shopping_items_week ON shopping_items (household_id, week, done, position);
            CREATE TABLE shopping_events (
                id {{primaryKey}},
                household_id BIGINT NOT NULL REFERENCES households (id),
                week TEXT NOT NULL,
                action TEXT NOT NULL CHECK (action IN ('added', 'checked', 'unchecked', 'removed', 'edited')),
                actor_id BIGINT REFERENCES users (id),
                item_id BIGINT,
                item_label TEXT NOT NULL,
                at BIGINT NOT NULL
            );
            CREATE INDEX shopping_events_week ON shopping_events (household_id, week, id);
            CREATE TABLE shopping_sessions (
                id {{primaryKey}},
                household_id BIGINT NOT NULL REFERENCES households (id),
                week TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users (id),
                started_at BIGINT NOT NULL,
                heartbeat_at BIGINT NOT NULL,
                ended_at BIGINT
            );
            CREATE INDEX shopping_sessions_week ON shopping_sessions (household_id, week, ended_at);
            """)

    /// The sweep looks for open sessions whose heartbeat lapsed every second: an index over the
    /// open ones only, so it never reads the history of finished sessions.
    static let openSessionsIndex = Migration(
        version: 2, name: "shopping: index of open sessions by heartbeat", formerCoreVersion: 7,
        sql: """
            CREATE INDEX shopping_sessions_open ON shopping_sessions (heartbeat_at) WHERE ended_at IS NULL;
            """
    )
}
