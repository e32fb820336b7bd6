extension Migration {
    /// Renewal of activities that outlive eight hours (`docs/engine.md`, "Renewal"):
    /// - `context_renewals`: a context's renewal planned for one deadline (at most once: the
    ///   sweep that plans it inserts this row in the same transaction as the successor starts);
    /// - `la_renewals`: per device, the successor's start (`la_starts` row), the predecessor's
    ///   `la-update` token, the deadline it renews, and how it stands: `starting`, `renewed`
    ///   (APNs accepted the successor; the predecessor's end is queued), `refused` (with the
    ///   reason; the predecessor ends at its limit) or `ended` (the predecessor's end at its
    ///   limit is queued).
    static let v16 = Migration(
        version: 16, name: "renewal of activities before their 8-hour limit",
        sql: """
            CREATE TABLE context_renewals (
                context_key TEXT NOT NULL REFERENCES contexts (key),
                deadline_at BIGINT NOT NULL,
                planned_at BIGINT NOT NULL,
                PRIMARY KEY (context_key, deadline_at)
            );
            CREATE TABLE la_renewals (
                id {{primaryKey}},
                context_key TEXT NOT NULL REFERENCES contexts (key),
                household_id BIGINT NOT NULL REFERENCES households (id),
                device_id TEXT NOT NULL,
                old_token_id BIGINT NOT NULL REFERENCES push_tokens (id),
                start_id BIGINT REFERENCES la_starts (id),
                deadline_at BIGINT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('starting', 'renewed', 'refused', 'ended')),
                reason TEXT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                UNIQUE (context_key, household_id, device_id, deadline_at)
            );
            CREATE INDEX la_renewals_start ON la_renewals (start_id);
            CREATE INDEX la_renewals_waiting ON la_renewals (status, deadline_at);
            """)
}
