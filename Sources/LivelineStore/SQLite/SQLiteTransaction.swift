/// A ``SQLTransaction`` on one ``SQLiteConnection``, valid only inside its `read`/`write` body.
///
/// Using it after the body returned (e.g. after storing it somewhere) throws `.misuse` instead of
/// touching a connection that another thread may own by then.
final class SQLiteTransaction: SQLTransaction {
    private let connection: SQLiteConnection
    var isOpen = true

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try ensureOpen()
        return try connection.run(sql, parameters, collect: false).changes
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [Row] {
        try ensureOpen()
        return try connection.run(sql, parameters, collect: true).rows
    }

    func executeScript(_ sql: String) throws {
        try ensureOpen()
        try connection.executeScript(sql)
    }

    /// Nothing to take: one write transaction runs at a time (`BEGIN IMMEDIATE`).
    func holdLock(_ name: String, shared: Bool, patient: Bool) throws {
        try ensureOpen()
    }

    private func ensureOpen() throws {
        guard isOpen else { throw StoreError(.misuse, "a transaction was used after its read or write body returned") }
    }
}
