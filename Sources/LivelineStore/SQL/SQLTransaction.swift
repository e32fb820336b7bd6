/// Statements run inside one transaction of a ``Database``.
///
/// SQL uses PostgreSQL placeholders `$1, $2, …` (a number may appear several times); values are
/// always bound, never spliced into the text. Backends prepare each distinct SQL text once per
/// connection, so pass constant SQL. Features used must exist on both backends: `RETURNING`,
/// `ON CONFLICT … DO …`, partial indexes.
public protocol SQLTransaction {
    /// Runs one statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int

    /// Runs one statement and returns all its rows (also for `INSERT … RETURNING`).
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [Row]

    /// Runs a script of several `;`-separated statements without parameters and without caching
    /// them: migrations and maintenance.
    func executeScript(_ sql: String) throws
}

extension SQLTransaction {
    /// The first row of the statement's result, or `nil` when it has none.
    public func queryOne(_ sql: String, _ parameters: [SQLValue] = []) throws -> Row? {
        try query(sql, parameters).first
    }

    /// ``query(_:_:)`` without parameters.
    public func query(_ sql: String) throws -> [Row] {
        try query(sql, [])
    }

    /// ``execute(_:_:)`` without parameters.
    @discardableResult
    public func execute(_ sql: String) throws -> Int {
        try execute(sql, [])
    }
}
