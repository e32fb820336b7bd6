import Foundation
import LivelineStore

/// Makes an empty database of one backend, so one suite runs on every backend
/// (guide habit 9; `docs/engine.md`, "Storage": "Both backends pass one shared test suite").
///
/// A PostgreSQL factory is added to ``all`` once that backend exists: it gets a scratch folder
/// it may ignore and must return an empty database (e.g. a fresh schema).
struct DatabaseFactory: Sendable, CustomStringConvertible {
    var description: String
    var open: @Sendable (_ folder: URL) throws -> any Database

    static let sqlite = DatabaseFactory(description: "SQLite") { folder in
        try SQLiteDatabase(folder: folder)
    }

    static let all: [DatabaseFactory] = [.sqlite]

    /// Runs `body` with an empty, unmigrated database.
    func withDatabase<T>(_ body: (any Database) throws -> T) throws -> T {
        try TemporaryFolder.with { folder in try body(open(folder)) }
    }

    /// Runs `body` with a migrated store on an empty database.
    func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        try withDatabase { database in try body(Store.open(database)) }
    }
}
