import LivelineStore

/// A claimed row with the requests it makes, and what the planner needs to know of it.
struct PreparedRow: Sendable {
    let row: OutboxRow
    /// The context revision the requests carry (sync rows and starts).
    let rev: Int?
    var sends: [PreparedSend]
    /// The rendered push of a sync row.
    let sync: RenderedSync?
    /// The message of a message row.
    let message: OutboxMessage?
    /// A whole fan-out's tokens still to read and send after `sends`.
    var remainingPages: TokenPages? = nil
    /// Why a whole fan-out stopped before its last token (a page could not be read): its
    /// answers are recorded, and the row goes again as a whole.
    var unfinished: String? = nil
}
