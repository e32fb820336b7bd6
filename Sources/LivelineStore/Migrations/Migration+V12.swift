extension Migration {
    /// `push_tokens_context` ends in the token's id: a fan-out reads its tokens in pages by id
    /// (``PushTokenRepository/updateTargets(contextKey:environment:householdID:onlyID:ledgerSince:after:limit:in:)``),
    /// and each page is then one range of the index on both backends. (SQLite's index entries
    /// ended in the row id already. PostgreSQL's did not, and scanned the primary key from the
    /// page's first id and filtered instead; `EXPLAIN ANALYZE` figures in
    /// docs/decisions/fan-out-token-pages.md.)
    /// Built in the migration's transaction: on PostgreSQL, writes to `push_tokens` wait until it
    /// is built.
    static let v12 = Migration(
        version: 12, name: "push_tokens: a context's tokens in id order",
        sql: """
            DROP INDEX push_tokens_context;
            CREATE INDEX push_tokens_context ON push_tokens (context_key, kind, environment, id) WHERE status = 'active';
            """)
}
