import Foundation

/// A SQL database that Liveline's repositories run on: SQLite (one server) or PostgreSQL (several).
///
/// All access is closure-scoped and synchronous. A `write` body runs in a transaction that commits
/// when the body returns, or rolls back when it throws. On SQLite write bodies run one at a time
/// (`BEGIN IMMEDIATE` takes the write lock up front); on PostgreSQL they run side by side (read
/// committed), so a body that reads before it writes holds the rows it depends on (`FOR UPDATE`,
/// `ContextRepository.lock(key:in:)`). `read` bodies see one consistent snapshot and run concurrently
/// with each other and with a writer (`docs/engine.md`, "Storage": one writer, separate read
/// connections for snapshots). Do not call `write` from inside a `write` body (it would wait for
/// itself), and note that a `read` inside a `write` body does not see the uncommitted changes.
/// On PostgreSQL a body whose first statement finds the connection broken runs once more on a new
/// one (nothing of the transaction reached the server): what a body does before its first
/// statement must bear running twice, and it must let that statement's error through.
public protocol Database: Sendable {
    /// The SQL flavour, for the few statements that must differ (migration DDL).
    var dialect: SQLDialect { get }

    /// Where the data lives, for messages: a file path, or a PostgreSQL host and database name
    /// (never a password).
    var location: String { get }

    /// Runs `body` in one read-only transaction: a consistent snapshot of committed data.
    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T

    /// A number that changes whenever a transaction committed to the database — by this process
    /// or any other — so a reader can keep a derived value while it is unchanged. Nil when the
    /// backend cannot tell (then nothing may be cached across requests).
    func changeVersion() throws -> UInt64?

    /// Like ``changeVersion()``, but it also moves with the commits of processes that are no
    /// server (`liveline users revoke` writes beside a running SQLite server): what a cache of
    /// sessions needs. Nil when the backend cannot tell.
    func changeVersionOfEveryWriter() throws -> UInt64?

    /// Takes what a server needs to use this database alone where the backend allows only one
    /// (SQLite: a lock file next to the database; refused, naming the holder, when another server
    /// has it). Nothing where several servers share the database.
    func claimServer() throws

    /// Lets another server use the database (a server's shutdown).
    func releaseServer()

    /// Runs `handler` whenever another process sharing the database may have committed (e.g. a
    /// PostgreSQL notification of another instance), so waiting work looks again. Backends with
    /// one server per database never call it.
    func onChangesElsewhere(_ handler: @escaping @Sendable () -> Void)

    /// Runs `handler` when a write is refused because the disk holding the database is full (the
    /// first of a streak) and when one commits again afterwards — once each, not per write
    /// (``StorageWatch``; `docs/reliability.md`, "Disk full"). The handler may log; it must not
    /// write to the database.
    func onStorageEvent(_ handler: @escaping @Sendable (StorageEvent) -> Void)

    /// Whether the last write was refused for lack of space and none committed since.
    var isStorageFull: Bool { get }

    /// The time to use for everything stored that other servers compare with their own time
    /// (due times, leases, budgets). Where several servers share the database, the database
    /// server's clock (PostgreSQL: its time as last read plus the time passed since on this
    /// machine's monotonic clock), so an instance whose clock is off neither takes back another's
    /// lease early nor holds its rows back; else this machine's.
    func now() -> Date

    /// Several servers write to it: their commits reach this one only through
    /// ``onChangesElsewhere(_:)`` or by looking again.
    var isShared: Bool { get }

    /// Ends the backend's own background work and waits for it (PostgreSQL: the notification
    /// feed's threads and a clock measurement under way), so the process may exit: a library's
    /// teardown under a running thread is not safe. True when all of it ended in time.
    /// Transactions still work afterwards; only other instances' notifications are no longer heard.
    @discardableResult
    func close() -> Bool
}

extension Database {
    public func onChangesElsewhere(_ handler: @escaping @Sendable () -> Void) {}
    public func onStorageEvent(_ handler: @escaping @Sendable (StorageEvent) -> Void) {}
    public var isStorageFull: Bool { false }
    public func changeVersion() throws -> UInt64? { nil }
    public func changeVersionOfEveryWriter() throws -> UInt64? { try changeVersion() }
    public func claimServer() throws {}
    public func releaseServer() {}
    public func now() -> Date { Date() }
    public var isShared: Bool { false }
    @discardableResult public func close() -> Bool { true }
}
