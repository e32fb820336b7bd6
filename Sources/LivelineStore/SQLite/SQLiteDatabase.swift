import Foundation
import Synchronization

/// The embedded default ``Database``: one SQLite file in WAL mode.
///
/// One writer connection behind a `Mutex` runs every `write` in `BEGIN IMMEDIATE … COMMIT`; read
/// connections (read-only, opened on demand, up to ``maxIdleReaders`` kept) each run a `read` in
/// its own `BEGIN … COMMIT`, a consistent snapshot that a concurrent writer does not disturb. Other
/// processes (the `liveline users` command while the server runs) wait up to the busy timeout of
/// five seconds for the write lock. (`engine.md`, "Storage"; SQLite documentation "Write-Ahead
/// Logging", "BEGIN TRANSACTION".)
public final class SQLiteDatabase: Database {
    /// The file name inside a data folder.
    public static let fileName = "liveline.sqlite"
    /// Idle read connections kept open; more are opened when more reads run at once, then closed.
    public static let maxIdleReaders = 4

    /// The database file.
    public let path: String
    public var dialect: SQLDialect { .sqlite }
    public var location: String { path }

    private let writer: Mutex<SQLiteConnection>
    private let idleReaders = Mutex<[SQLiteConnection]>([])
    /// A read-only connection that only asks `PRAGMA data_version`: it changes when any other
    /// connection — this process's writer or another process — committed (SQLite, "PRAGMA
    /// data_version").
    private let watcher: Mutex<SQLiteConnection?> = Mutex(nil)

    /// Opens the database file at `path`, creating it (not its folder) when missing.
    public init(path: String) throws {
        self.path = path
        writer = Mutex(try SQLiteConnection(path: path, readOnly: false))
    }

    /// Opens `<folder>/liveline.sqlite`; the folder must exist.
    public convenience init(folder: URL) throws {
        try self.init(path: folder.appendingPathComponent(Self.fileName).path)
    }

    @discardableResult
    public func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        // The result goes through a local: `withLock` may only return `sending` values, and the
        // caller's `T` need not be Sendable.
        var result: Result<T, any Error>?
        writer.withLock { connection in
            result = Result { try connection.transaction(begin: "BEGIN IMMEDIATE", body) }
        }
        return try result!.get()
    }

    public func changeVersion() throws -> UInt64? {
        var result: Result<UInt64?, any Error>?
        watcher.withLock { watcher in
            result = Result {
                let connection = try watcher ?? SQLiteConnection(path: path, readOnly: true)
                watcher = connection
                return try connection.run("PRAGMA data_version", [], collect: true).rows.first.map { UInt64(try $0.int64("data_version")) }
            }
        }
        return try result!.get()
    }

    public func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        let connection = try checkOutReader()
        defer { checkIn(connection) }
        return try connection.transaction(begin: "BEGIN", body)
    }

    private func checkOutReader() throws -> SQLiteConnection {
        if let idle = idleReaders.withLock({ $0.popLast() }) { return idle }
        return try SQLiteConnection(path: path, readOnly: true)
    }

    private func checkIn(_ connection: SQLiteConnection) {
        idleReaders.withLock { idle in
            if idle.count < Self.maxIdleReaders { idle.append(connection) }
        }
    }
}
