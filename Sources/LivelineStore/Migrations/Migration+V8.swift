extension Migration {
    /// Where a push token's environment came from (`docs/engine.md`, "Push tokens"): `app` (the
    /// registration said it), `default` (it did not: the server's default was taken, and a
    /// `BadDeviceToken` there is tried once in the other environment), `learned` (the other
    /// environment accepted it). Tokens registered before this migration count as `app`.
    /// (Versions 6 and 7 were the core's before shopping had its own migrations.)
    static let v8 = Migration(
        version: 8, name: "push token environment source",
        sql: """
            ALTER TABLE push_tokens ADD COLUMN environment_source TEXT NOT NULL DEFAULT 'app'
                CHECK (environment_source IN ('app', 'default', 'learned'));
            """)
}
