import Dispatch
import Foundation
import Synchronization

/// The ``Database`` several Liveline instances share: PostgreSQL through libpq, with a pool of
/// connections of a fixed size per instance (README, "Several instances").
///
/// Each `read` runs in `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` (one consistent
/// snapshot), each `write` in `BEGIN` (read committed), on a connection checked out of the pool
/// for that one transaction. A connection found broken is dropped and a new one opened on the
/// next checkout, so a restarted server is reconnected to. Statements are prepared once per
/// connection. (`docs/engine.md`, "Storage".)
public final class PostgresDatabase: Database {
    public let settings: PostgresSettings
    /// Connections this instance opens at most.
    public let poolSize: Int
    /// How long a transaction waits for a free connection before failing with `.busy`.
    public let checkoutTimeout: TimeInterval
    public var dialect: SQLDialect { .postgres }
    public var location: String { settings.location }

    private let idle = Mutex<[PostgresConnection]>([])
    private let slots: DispatchSemaphore
    /// This instance's commits that changed rows.
    private let commits = ChangeCounter()
    /// Other instances' commits, as their notifications arrive (started on first use).
    private let feed: PostgresChangeFeed

    /// Connects once to check the settings (a wrong password or an unreachable server fails
    /// here, naming the server), keeping that connection in the pool.
    public init(settings: PostgresSettings, poolSize: Int = 10, checkoutTimeout: TimeInterval = 30) throws {
        precondition(poolSize >= 1, "a pool has at least one connection")
        self.settings = settings
        self.poolSize = poolSize
        self.checkoutTimeout = checkoutTimeout
        slots = DispatchSemaphore(value: poolSize)
        feed = PostgresChangeFeed(settings: settings)
        let first = try PostgresConnection(settings)
        idle.withLock { $0.append(first) }
    }

    public func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        }
    }

    @discardableResult
    public func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        let (result, changed) = try withConnection { connection in
            let result = try connection.transaction(begin: "BEGIN", body)
            return (result, connection.lastTransactionChanged)
        }
        if changed {
            commits.bump()
            feed.localCommit()
        }
        return result
    }

    /// This instance's commits and the other instances' notifications, counted together: it
    /// changes within about ``PostgresChangeFeed/spacing`` of another instance's commit.
    public func changeVersion() throws -> UInt64? {
        feed.start()
        return commits.value &+ feed.remoteChanges.value &* 0x1_0000_0000
    }

    public func onChangesElsewhere(_ handler: @escaping @Sendable () -> Void) {
        feed.onRemoteChange(handler)
        feed.start()
    }

    deinit { feed.stop() }

    /// A connection of its own, outside the pool (the notification listener's).
    func dedicatedConnection() throws -> PostgresConnection { try PostgresConnection(settings) }

    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard slots.wait(timeout: .now() + checkoutTimeout) == .success else {
            throw StoreError(
                .busy, "all \(poolSize) connections to PostgreSQL at \(location) stayed busy for \(Int(checkoutTimeout)) s (LIVELINE_DATABASE_POOL)")
        }
        defer { slots.signal() }
        let connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(settings)
        do {
            let result = try body(connection)
            if connection.isHealthy { idle.withLock { $0.append(connection) } }
            return result
        } catch is ConnectionLost {
            // An idle connection the server dropped (a restart, a timeout): once more on a new one.
            let fresh = try PostgresConnection(settings)
            do {
                let result = try body(fresh)
                if fresh.isHealthy { idle.withLock { $0.append(fresh) } }
                return result
            } catch let again as ConnectionLost {
                throw again.error
            } catch {
                if fresh.isHealthy { idle.withLock { $0.append(fresh) } }
                throw error
            }
        } catch {
            // One left in a transaction or cut off is not reused: the next checkout connects anew.
            if connection.isHealthy { idle.withLock { $0.append(connection) } }
            throw error
        }
    }
}
