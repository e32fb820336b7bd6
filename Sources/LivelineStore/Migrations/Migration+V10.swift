extension Migration {
    /// Deliveries by time: the dashboard's "pushes of the last hour by outcome" reads a range of
    /// `attempted_at` over every context.
    static let v10 = Migration(
        version: 10, name: "deliveries by time",
        sql: """
            CREATE INDEX deliveries_attempted ON deliveries (attempted_at);
            """)
}
