extension Migration {
    /// What the dashboard reads and keeps:
    /// - `deliveries_attempted`: "pushes of the last hour by outcome" reads a range of
    ///   `attempted_at` over every context;
    /// - `push_tokens_ended`: the devices page lists the tokens that ended lately;
    /// - `dashboard_revocations`: signed-out dashboard sessions, until they would have expired, so
    ///   a signed-out cookie is refused by every instance and after a restart.
    static let v10 = Migration(
        version: 10, name: "dashboard: read indexes, revoked sessions",
        sql: """
            CREATE INDEX deliveries_attempted ON deliveries (attempted_at);
            CREATE INDEX push_tokens_ended ON push_tokens (ended_at);
            CREATE TABLE dashboard_revocations (
                nonce TEXT PRIMARY KEY,
                expires_at BIGINT NOT NULL
            );
            """)
}
