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

    /// Takes the lock `name` and holds it until the transaction ends, so transactions of every
    /// server sharing the database that take it run one after another (those that take it
    /// `shared`, side by side). With `patient`, waiting for it is not cut by the statement timeout
    /// (a feed load waiting for another instance's). PostgreSQL: a transaction-level advisory lock
    /// of the schema; SQLite: nothing, its write transactions run one at a time already
    /// (`docs/engine.md`, "Storage").
    func holdLock(_ name: String, shared: Bool, patient: Bool) throws
}

extension SQLTransaction {
    /// ``holdLock(_:shared:patient:)`` taken alone, waiting at most the statement timeout.
    public func holdLock(_ name: String) throws {
        try holdLock(name, shared: false, patient: false)
    }

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
