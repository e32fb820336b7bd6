import Dispatch
import Foundation
import Synchronization

/// The ``Database`` several Liveline instances share: PostgreSQL through libpq, with a pool of
/// connections of a fixed size per instance (docs/operations.md, "Several instances").
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
    /// Whether the database server's disk is full, as this instance's writes find it
    /// (SQLSTATE 53100; `docs/reliability.md`, "Disk full").
    private let storage = StorageWatch()
    /// Other instances' commits, as their notifications arrive (started on first use).
    private let feed: PostgresChangeFeed
    /// The server's clock as last measured: its time then, and when that was on this machine's
    /// monotonic clock (which a step of the wall clock does not move).
    private struct ClockReading {
        var serverTime: TimeInterval
        var at: ContinuousClock.Instant
        var roundTrip: Duration
    }
    private let clock = Mutex<(reading: ClockReading?, lastTry: ContinuousClock.Instant?, running: Bool)>((nil, nil, false))
    /// Clock measurements under way (``close()`` waits for them).
    private let background = DispatchGroup()
    private let closed = Atomic<Bool>(false)
    /// How often the server's clock is read again (clocks drift).
    static let clockRefresh: TimeInterval = 10

    /// Connects once to check the settings (a wrong password or an unreachable server fails
    /// here, naming the server), keeping that connection in the pool.
    /// Reads the server's clock on that connection (``now()``).
    public init(settings: PostgresSettings, poolSize: Int = 10, checkoutTimeout: TimeInterval = 30) throws {
        precondition(poolSize >= 1, "a pool has at least one connection")
        self.settings = settings
        self.poolSize = poolSize
        self.checkoutTimeout = checkoutTimeout
        slots = DispatchSemaphore(value: poolSize)
        feed = PostgresChangeFeed(settings: settings)
        let first = try PostgresConnection(settings)
        try measureClock(on: first, samples: 3)
        idle.withLock { $0.append(first) }
    }

    /// The database server's clock (`docs/engine.md`, "Storage"): its time at the last
    /// measurement plus the time passed since on this machine's monotonic clock, so every instance
    /// dates leases and due times on one clock, within half a round trip, whatever its own wall
    /// clock says or does (a step of it changes nothing). Measured again in the background every
    /// ``clockRefresh`` (clocks drift); never waits.
    public func now() -> Date {
        let instant = ContinuousClock.now
        let (reading, due) = clock.withLock { state -> (ClockReading?, Bool) in
            let due = !state.running && state.lastTry.map { instant - $0 >= .seconds(Self.clockRefresh) } ?? true
            if due {
                state.running = true
                state.lastTry = instant
            }
            return (state.reading, due)
        }
        if due {
            background.enter()
            DispatchQueue.global().async { [weak self] in
                if let self, !closed.load(ordering: .acquiring) {
                    _ = try? withConnection { try measureClock(on: $0, samples: 1) }
                    clock.withLock { $0.running = false }
                }
                self?.background.leave()
            }
        }
        // Never measured (the server could not be asked): this machine's clock.
        guard let reading else { return Date() }
        let elapsed = instant - reading.at
        return Date(
            timeIntervalSince1970: reading.serverTime + Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Reads the server's clock `samples` times and keeps the reading with the shortest round trip
    /// (its error is at most half of it). A later reading replaces the one kept unless its round
    /// trip was much longer (a busy moment says little) and the one kept is still recent.
    private func measureClock(on connection: PostgresConnection, samples: Int) throws {
        var best: ClockReading?
        for _ in 0..<samples {
            let sent = ContinuousClock.now
            let row = try connection.run("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) AS now", [], collect: true)
                .rows.first
            let received = ContinuousClock.now
            guard let server = try row?.double("now") else { continue }
            let roundTrip = received - sent
            if roundTrip < best?.roundTrip ?? .seconds(1) { best = ClockReading(serverTime: server, at: sent + roundTrip / 2, roundTrip: roundTrip) }
        }
        guard let best else { return }
        clock.withLock { state in
            if let kept = state.reading, best.roundTrip > max(kept.roundTrip * 4, .milliseconds(5)), best.at - kept.at < .seconds(60) { return }
            state.reading = best
        }
    }

    public func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        }
    }

    @discardableResult
    public func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        let (result, changed): (T, Bool)
        do {
            (result, changed) = try withConnection { connection in
                let result = try connection.transaction(begin: "BEGIN", body)
                return (result, connection.lastTransactionChanged)
            }
        } catch {
            storage.writeFailed(error)
            throw error
        }
        if changed {
            commits.bump()
            feed.localCommit()
            storage.writeCommitted()
        }
        return result
    }

    public func onStorageEvent(_ handler: @escaping @Sendable (StorageEvent) -> Void) { storage.observe(handler) }

    public var isStorageFull: Bool { storage.isFull }

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
