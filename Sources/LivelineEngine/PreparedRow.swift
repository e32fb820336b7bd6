import LivelineStore

/// A claimed row with the requests it makes, and what the planner needs to know of it.
struct PreparedRow: Sendable {
    let row: OutboxRow
    /// The context revision the requests carry (sync rows and starts).
    let rev: Int?
    let sends: [PreparedSend]
    /// The rendered push of a sync row.
    let sync: RenderedSync?
    /// The message of a message row.
    let message: OutboxMessage?
}
