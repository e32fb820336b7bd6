extension Migration {
    /// The engine's sweep looks for open shopping sessions whose heartbeat lapsed every second:
    /// an index over the open ones only, so it never reads the history of finished sessions.
    static let v7 = Migration(version: 7, name: "shopping: index of open sessions by heartbeat", sql: """
        CREATE INDEX shopping_sessions_open ON shopping_sessions (heartbeat_at) WHERE ended_at IS NULL;
        """)
}
