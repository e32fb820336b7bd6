extension Migration {
    /// Broadcast channels per APNs environment, and the environment of each delivery
    /// (`docs/engine.md`, "Broadcast channels", "Push tokens"):
    /// - `context_channels` links a context to its channel in one environment (a context with
    ///   devices in both has one in each). It replaces `contexts.channel_id`, whose links move here
    ///   with their channel's recorded environment and are cleared there; the old column is
    ///   no longer read (a link without a channel row is left in it, untouched).
    /// - `deliveries.environment`: the APNs environment an attempt went to (empty on older rows).
    static let v9 = Migration(
        version: 9, name: "channels per environment, delivery environment",
        sql: """
            CREATE TABLE context_channels (
                context_key TEXT NOT NULL,
                environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
                channel_id TEXT NOT NULL UNIQUE,
                PRIMARY KEY (context_key, environment)
            );
            INSERT INTO context_channels (context_key, environment, channel_id)
                SELECT contexts.key, channels.environment, contexts.channel_id
                FROM contexts JOIN channels ON channels.channel_id = contexts.channel_id
                WHERE channels.environment IN ('sandbox', 'production');
            UPDATE contexts SET channel_id = NULL WHERE key IN (SELECT context_key FROM context_channels);
            ALTER TABLE deliveries ADD COLUMN environment TEXT;
            """)
}
