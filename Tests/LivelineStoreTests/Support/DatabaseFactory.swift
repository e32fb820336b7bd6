import Foundation
import LivelineStore
import LivelineTestSupport

/// Makes an empty database of one backend, so one suite runs on every backend
/// (guide habit 9; `docs/engine.md`, "Storage": "Both backends pass one shared test suite").
struct DatabaseFactory: Sendable, CustomStringConvertible {
    var description: String
    /// An empty database, and what removes it again; `folder` is a scratch folder it may use.
    var open: @Sendable (_ folder: URL) throws -> (database: any Database, drop: @Sendable () -> Void)

    static let sqlite = DatabaseFactory(description: "SQLite") { folder in
        (try SQLiteDatabase(folder: folder), {})
    }

    /// A schema of its own on the tests' PostgreSQL server (``TestPostgres``).
    static let postgres = DatabaseFactory(description: "PostgreSQL") { _ in
        let (database, drop) = try TestPostgres.freshDatabase()
        return (database, drop)
    }

    static let all: [DatabaseFactory] = [.sqlite, .postgres]

    /// A second connection to the same database, as another instance would open it.
    func another(_ database: any Database) throws -> any Database {
        switch database {
        case let sqlite as SQLiteDatabase: try SQLiteDatabase(path: sqlite.path)
        case let postgres as PostgresDatabase: try PostgresDatabase(settings: postgres.settings, poolSize: 2)
        default: throw StoreError(.misuse, "no second connection for \(database.location)")
        }
    }

    /// Runs `body` with an empty, unmigrated database.
    func withDatabase<T>(_ body: (any Database) throws -> T) throws -> T {
        try TemporaryFolder.with { folder in
            let (database, drop) = try open(folder)
            defer { drop() }
            return try body(database)
        }
    }

    /// Runs `body` with a migrated store on an empty database.
    func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        try withDatabase { database in try body(Store.open(database)) }
    }
}
