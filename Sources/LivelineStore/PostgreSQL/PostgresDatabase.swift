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
    public var isShared: Bool { true }

    private let idle = Mutex<[PostgresConnection]>([])
    private let slots: DispatchSemaphore
    /// This instance's commits that changed rows.
    private let commits = ChangeCounter()
    /// Other instances' commits, as their notifications arrive (started on first use).
    private let feed: PostgresChangeFeed
    /// This machine's clock (a test's skewed one).
    private let systemClock: @Sendable () -> Date
    /// The database server's clock minus ``systemClock``, in microseconds, as last measured.
    private let clockOffset = Atomic<Int64>(0)
    /// When the offset was last measured (by ``systemClock``, seconds since 1970), and whether a
    /// measurement is under way.
    private let clockMeasured = Mutex<(at: TimeInterval, running: Bool)>((0, false))
    /// Clock measurements under way (``close()`` waits for them).
    private let background = DispatchGroup()
    private let closed = Atomic<Bool>(false)
    /// How often the offset is measured again (clocks drift, and get stepped).
    static let clockRefresh: TimeInterval = 10

    /// Connects once to check the settings (a wrong password or an unreachable server fails
    /// here, naming the server), keeping that connection in the pool.
    /// Measures the offset of the server's clock on that connection (``now()``).
    public init(
        settings: PostgresSettings, poolSize: Int = 10, checkoutTimeout: TimeInterval = 30,
        systemClock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        precondition(poolSize >= 1, "a pool has at least one connection")
        self.settings = settings
        self.poolSize = poolSize
        self.checkoutTimeout = checkoutTimeout
        self.systemClock = systemClock
        slots = DispatchSemaphore(value: poolSize)
        feed = PostgresChangeFeed(settings: settings)
        let first = try PostgresConnection(settings)
        try measureClock(on: first, samples: 3)
        idle.withLock { $0.append(first) }
    }

    /// This machine's clock plus the server's measured offset (`docs/engine.md`, "Storage"):
    /// every instance then dates leases and due times on the server's clock, within half a round
    /// trip. Measured again in the background every ``clockRefresh``; never waits.
    public func now() -> Date {
        let local = systemClock()
        let due = clockMeasured.withLock { measured in
            guard !measured.running, local.timeIntervalSince1970 - measured.at >= Self.clockRefresh else { return false }
            measured.running = true
            return true
        }
        if due {
            background.enter()
            DispatchQueue.global().async { [weak self] in
                if let self, !closed.load(ordering: .acquiring) {
                    _ = try? withConnection { try measureClock(on: $0, samples: 1) }
                    clockMeasured.withLock { $0.running = false }
                }
                self?.background.leave()
            }
        }
        return local.addingTimeInterval(Double(clockOffset.load(ordering: .relaxed)) / 1_000_000)
    }

    /// The offset of the server's clock from ``systemClock``, from the sample of `samples` with the
    /// shortest round trip (its error is at most half of it). A sample whose round trip took
    /// longer than a second says too little and is not used.
    private func measureClock(on connection: PostgresConnection, samples: Int) throws {
        var best: (roundTrip: TimeInterval, offset: TimeInterval)?
        for _ in 0..<samples {
            let sent = systemClock()
            let row = try connection.run("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) AS now", [], collect: true)
                .rows.first
            let received = systemClock()
            guard let server = try row?.double("now") else { continue }
            let roundTrip = received.timeIntervalSince(sent)
            let offset = server - (sent.timeIntervalSince1970 + roundTrip / 2)
            if roundTrip < best?.roundTrip ?? 1 { best = (roundTrip, offset) }
        }
        clockMeasured.withLock { $0.at = systemClock().timeIntervalSince1970 }
        guard let best else { return }
        clockOffset.store(Int64((best.offset * 1_000_000).rounded()), ordering: .relaxed)
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
        // Closed, it no longer hears the others: nothing may be cached.
        guard !closed.load(ordering: .acquiring) else { return nil }
        feed.start()
        return commits.value &+ feed.remoteChanges.value &* 0x1_0000_0000
    }

    public func onChangesElsewhere(_ handler: @escaping @Sendable () -> Void) {
        feed.onRemoteChange(handler)
        feed.start()
    }

    /// Stops the notification feed and waits (up to 3 s) for it and for a clock measurement
    /// under way.
    @discardableResult
    public func close() -> Bool {
        closed.store(true, ordering: .releasing)
        let feedEnded = feed.stop(timeout: 3)
        return background.wait(timeout: .now() + 3) == .success && feedEnded
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
