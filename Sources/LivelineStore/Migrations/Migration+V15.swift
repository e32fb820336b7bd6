extension Migration {
    /// Scheduled starts (`docs/api.md`, "Scheduled starts"):
    /// - `la_starts.scheduled_at`: when a start asked for later goes out (its outbox row is due
    ///   then); nil for a start sent at once;
    /// - `la_starts.missed_at`: when a scheduled start was given up on because the server could
    ///   not send it within the grace period after its time (it is then `failed`).
    ///
    /// Versions need not be contiguous (``Migrator`` applies each known version it lacks), so
    /// this one renumbers by changing `version` only.
    static let v15 = Migration(
        version: 15, name: "scheduled starts",
        sql: """
            ALTER TABLE la_starts ADD COLUMN scheduled_at BIGINT;
            ALTER TABLE la_starts ADD COLUMN missed_at BIGINT
            """)
}
