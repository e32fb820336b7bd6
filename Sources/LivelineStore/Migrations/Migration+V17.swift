extension Migration {
    /// The app's own activities as it reports them (`docs/engine.md`, "App-reported activities"):
    /// `la_activity_reports`, per context and device, the newest state (`pending` until
    /// `starts_at`, `active`, `ended`) and style (`standard`, `transient`), and per activity
    /// (ActivityKit's `Activity.id`, '' when the app sent none); `push_tokens.activity_id`, the
    /// activity an `la-update` token belongs to. A new table and a nullable column: older builds
    /// read neither.
    static let v17 = Migration(
        version: 17, name: "activities the app reports: pending, active, transient", compatibility: .expand,
        sql: """
            CREATE TABLE la_activity_reports (
                context_key TEXT NOT NULL REFERENCES contexts (key),
                household_id BIGINT NOT NULL REFERENCES households (id),
                device_id TEXT NOT NULL,
                activity_id TEXT NOT NULL DEFAULT '',
                user_id BIGINT NOT NULL REFERENCES users (id),
                state TEXT NOT NULL CHECK (state IN ('pending', 'active', 'ended')),
                style TEXT NOT NULL CHECK (style IN ('standard', 'transient')),
                starts_at BIGINT,
                reported_at BIGINT NOT NULL,
                PRIMARY KEY (context_key, household_id, device_id, activity_id)
            );
            ALTER TABLE push_tokens ADD COLUMN activity_id TEXT;
            """)
}
