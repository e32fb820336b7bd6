extension Migration {
    /// The budget's ledger keyed by token id (`docs/decisions/the-budget-ledger-by-token-id.md`):
    /// `deliveries_budget` (migration 11) ordered a token's entries by the id's text, so the
    /// tokens of one page of a fan-out (consecutive ids) were scattered over the whole index,
    /// and each round inserted into, and read, a page of it per token. `deliveries_budget_tokens`
    /// orders them by the id as a number, the expression ``SQLDialect/deliveryTokenID(_:)`` writes
    /// in the queries (written out here: a released migration never changes; `BudgetIndexTests`
    /// checks the queries are planned on it): a page's tokens are neighbours.
    /// `deliveries_budget_channels` keeps the channels' entries. Expanding: older builds read
    /// `deliveries_budget`, dropped by the contract step once no older instance is left.
    static let v19 = Migration(
        version: 19, name: "deliveries: the budget's ledger by token id",
        contract: "DROP INDEX IF EXISTS deliveries_budget",
        sql: """
            CREATE INDEX deliveries_budget_channels ON deliveries (context_key, target, attempted_at)
                WHERE priority = 10 AND status = 200 AND target_kind = 'channel';
            """,
        sqlByDialect: [
            .sqlite: """
            CREATE INDEX deliveries_budget_tokens ON deliveries (context_key, CAST(target AS BIGINT), attempted_at)
                WHERE priority = 10 AND status = 200 AND target_kind = 'token';
            """,
            .postgres: """
            CREATE INDEX deliveries_budget_tokens
                ON deliveries (context_key, (CASE WHEN target_kind = 'token' THEN CAST(target AS BIGINT) END), attempted_at)
                WHERE priority = 10 AND status = 200 AND target_kind = 'token';
            """,
        ])
}
