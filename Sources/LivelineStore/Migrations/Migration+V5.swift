extension Migration {
    /// The user's "show Live Activities" setting per activity type (`docs/sdk.md`, "Opt-in"):
    /// no row means the default (on); a push-to-start never goes to a user who turned it off.
    static let v5 = Migration(
        version: 5, name: "Live Activity opt-in per user and type",
        sql: """
            CREATE TABLE la_preferences (
                user_id BIGINT NOT NULL REFERENCES users (id),
                attributes_type TEXT NOT NULL,
                enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
                updated_at BIGINT NOT NULL,
                PRIMARY KEY (user_id, attributes_type)
            );
            """)
}
