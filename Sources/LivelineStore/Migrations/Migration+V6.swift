extension Migration {
    /// The shopping feature's tables (`shopping.md`, "Data"): a household's items per week, the
    /// chronology of tracked actions (the card's story comes from its latest entry), and shopping
    /// sessions (presence with a heartbeat).
    static let v6 = Migration(version: 6, name: "shopping: items, events, sessions", sql: """
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
}
