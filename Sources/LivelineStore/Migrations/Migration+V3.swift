extension Migration {
    /// Push spacing per context: `contexts.next_push_at` (unix milliseconds) is the earliest time
    /// the next whole-fan-out push of the context may go. The dispatcher moves it forward when it
    /// renders one (``ContextRepository/holdNextPush(key:until:in:)``); a change enqueues its sync
    /// row due no earlier, so changes arriving meanwhile coalesce into that one row.
    static let v3 = Migration(
        version: 3, name: "push spacing per context",
        sql: """
            ALTER TABLE contexts ADD COLUMN next_push_at BIGINT NOT NULL DEFAULT 0;
            """)
}
