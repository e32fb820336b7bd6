extension Migration {
    /// `deliveries_budget`: the budget's ledger (``DeliveryRepository/priorityLedger(contextKey:since:channelsOnly:in:)``)
    /// counts, per target, the priority-10 pushes APNs accepted for a context in the last hour.
    /// Through `deliveries_context` that was a table lookup and a sort for every one of them —
    /// a fifth of a second before the first push of a fan-out to 100,000 tokens, once they had
    /// one push behind them. This index holds only those deliveries, in target order, with the
    /// time: the count is read from it alone.
    static let v11 = Migration(
        version: 11, name: "deliveries: the budget's ledger from an index",
        sql: """
            CREATE INDEX deliveries_budget ON deliveries (context_key, target_kind, target, attempted_at)
                WHERE priority = 10 AND status = 200;
            """)
}
