import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The embedded default ``Database``: one SQLite file in WAL mode.
///
/// One writer connection runs every `write` in `BEGIN IMMEDIATE … COMMIT`, writes that arrive
/// together sharing one transaction (group commit, ``SQLiteWriteGroup``); read
/// connections (read-only, opened on demand, up to ``maxIdleReaders`` kept) each run a `read` in
/// its own `BEGIN … COMMIT`, a consistent snapshot that a concurrent writer does not disturb. Other
/// processes (the `liveline users` command while the server runs) wait up to the busy timeout of
/// five seconds for the write lock. (`docs/engine.md`, "Storage"; SQLite documentation "Write-Ahead
/// Logging", "BEGIN TRANSACTION".)
public final class SQLiteDatabase: Database {
    /// The file name inside a data folder.
    public static let fileName = "liveline.sqlite"
    /// Idle read connections kept open; more are opened when more reads run at once, then closed.
    public static let maxIdleReaders = 4
    /// The writer connection's pragmas of reading and writing (page cache, memory map,
    /// `synchronous`, `cache_spill`; not the WAL switch or the checkpointing): the raw baseline
    /// of `liveline-bench upsert` runs the same statements with them.
    public static var writerTuningPragmas: String { SQLiteConnection.tuningPragmas(readOnly: false) }

    /// The database file.
    public let path: String
    public var dialect: SQLDialect { .sqlite }
    public var location: String { path }

    /// The one writer connection, shared by concurrent writes through group commit.
    private let writer: SQLiteWriteGroup
    /// Checkpoints the WAL after commits, off the writer's path.
    private let checkpointer: SQLiteCheckpointer
    private let idleReaders = Mutex<[SQLiteConnection]>([])
    /// A read-only connection that only asks `PRAGMA data_version`: it changes when any other
    /// connection — this process's writer or another process — committed (SQLite, "PRAGMA
    /// data_version").
    private let watcher: Mutex<VersionWatcher?> = Mutex(nil)
    /// Commits by this object's writer that changed rows (bumped after each).
    private let commits = ChangeCounter()
    /// Whether the disk is full, as the writer's last write found it (`docs/reliability.md`, "Disk full").
    private let storage = StorageWatch()
    /// The file descriptor holding the server lock (``claimServer()``), or -1.
    private let serverLock = Atomic<Int32>(-1)

    /// Opens the database file at `path`, creating it (not its folder) when missing.
    public init(path: String) throws {
        self.path = path
        writer = SQLiteWriteGroup(connection: try SQLiteConnection(path: path, readOnly: false))
        checkpointer = SQLiteCheckpointer(path: path)
    }

    /// Opens `<folder>/liveline.sqlite`; the folder must exist.
    public convenience init(folder: URL) throws {
        try self.init(path: folder.appendingPathComponent(Self.fileName).path)
    }

    @discardableResult
    public func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        // Once per commit that changed rows, before any of its writes is answered (the dispatcher's
        // idle claims change nothing).
        let ending = writer.write(body) { commits.bump() }
        switch ending.result {
        case .success:
            // A commit that changed nothing wrote nothing: it says nothing about the disk either.
            if ending.committedChanges {
                storage.writeCommitted()
                checkpointer.committed()
            }
        case .failure(let error):
            // A full disk: SQLite rolled the transaction back (or the writer did); nothing of this
            // write is in the file, the writer stays usable, and the next commit ends the streak.
            storage.writeFailed(error)
        }
        return try ending.result.get()
    }

    /// Writes run and the transactions that held them (group commit, ``SQLiteWriteGroup``).
    public var groupCommitCounts: (writes: Int, commits: Int) { writer.counts }

    public func onStorageEvent(_ handler: @escaping @Sendable (StorageEvent) -> Void) { storage.observe(handler) }

    public var isStorageFull: Bool { storage.isFull }

    /// While this process holds the server lock, its own writer is the only one (``claimServer()``),
    /// so the count of its commits is the version — no database call. Otherwise `PRAGMA
    /// data_version` on a connection of its own, which also sees other processes' commits.
    public func changeVersion() throws -> UInt64? {
        if serverLock.load(ordering: .acquiring) >= 0 { return commits.value }
        return try changeVersionOfEveryWriter()
    }

    /// `PRAGMA data_version` on a connection of its own: it moves with every other connection's
    /// commit, of this process (its writer) or another (`liveline users revoke`).
    /// While the WAL index's header is the one seen at the last answer, no connection committed
    /// since, and that answer stands (``SQLiteConnection/walIndexHeader()``: no file lock, no
    /// system call on the path of every authenticated request). A header that moved (a commit, a
    /// checkpoint that restarted the WAL, a read caught mid-update) is checked with `PRAGMA
    /// data_version`, which is exact.
    public func changeVersionOfEveryWriter() throws -> UInt64? {
        var result: Result<UInt64?, any Error>?
        watcher.withLock { watcher in
            result = Result {
                let state = try watcher ?? VersionWatcher(connection: SQLiteConnection(path: path, readOnly: true))
                watcher = state
                // The header first: a commit after this look changes it, so the version read
                // next is never older than what the header stands for.
                let header = state.connection.walIndexHeader()
                if let header, header == state.header, let version = state.version { return version }
                let version = try state.connection.dataVersion()
                state.header = header
                state.version = version
                return version
            }
        }
        return try result!.get()
    }

    /// The connection that asks `PRAGMA data_version`, and what it last answered.
    private final class VersionWatcher {
        let connection: SQLiteConnection
        var header: WALIndexHeader?
        var version: UInt64?

        init(connection: SQLiteConnection) {
            self.connection = connection
        }
    }

    /// The lock file of ``claimServer()``.
    public var serverLockPath: String { path + ".serve-lock" }  // as ``lockServer(databasePath:)`` names it

    /// Takes the server lock of this database file (`docs/engine.md`, "Storage": SQLite has one
    /// writer; several server instances share a PostgreSQL database). Throws `.busy`, naming the
    /// process, when another server holds it. Other commands (`liveline users add`) do not take
    /// it. Held until ``releaseServer()`` or the process ends.
    public func claimServer() throws {
        guard serverLock.load(ordering: .acquiring) < 0 else { return }
        serverLock.store(try Self.lockServer(databasePath: path), ordering: .releasing)
    }

    /// Holds `descriptor`, a server lock taken with ``lockServer(databasePath:)`` before this
    /// object was made, as ``claimServer()`` would have.
    public func adoptServerLock(_ descriptor: Int32) {
        if serverLock.compareExchange(expected: -1, desired: descriptor, ordering: .acquiringAndReleasing).exchanged { return }
        Glibc.close(descriptor)
    }

    /// Takes the server lock of the database file at `databasePath` (``claimServer()``) for a
    /// command that must not run beside a server (`liveline restore`): the open lock file, to be
    /// closed with `close(2)` to let go. Throws `.busy`, naming the process, when another holds it.
    public static func lockServer(databasePath: String) throws -> Int32 {
        let lockPath = databasePath + ".serve-lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.io, "could not open the server lock \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            let holder = (try? String(contentsOfFile: lockPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            throw StoreError(
                .busy,
                """
                another liveline server (pid \(holder)) is using the database \(databasePath); SQLite has one server per data \
                folder (several instances share a PostgreSQL database). Stop it or use another data folder.
                """)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
        return descriptor
    }

    /// Lets another server use the database (its shutdown).
    public func releaseServer() {
        let descriptor = serverLock.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Stops the checkpointer's thread (and waits for it); writes still work afterwards, and the
    /// writer checkpoints by itself then.
    @discardableResult
    public func close() -> Bool {
        checkpointer.stop()
    }

    deinit {
        checkpointer.stop()
        releaseServer()
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
