import Foundation
@testable import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// A full disk is told once when writes start being refused and once when they commit again
/// (`docs/reliability.md`, "Disk full").
struct StorageWatchTests {
    static let full = StoreError(.storageFull, "could not run `COMMIT`: database or disk is full (SQLite result code 13)")

    /// What a watch told, in order.
    final class Told: Sendable {
        private let events = Mutex<[StorageEvent]>([])
        init(_ watch: StorageWatch) { watch.observe { event in self.events.withLock { $0.append(event) } } }
        var all: [StorageEvent] { events.withLock { $0 } }
    }

    @Test func aStreakOfRefusedWritesIsOneFullEventAndTheNextCommitOneFreedEvent() {
        let watch = StorageWatch(settle: .zero)
        let events = Told(watch)
        watch.writeCommitted()
        for _ in 0..<5 { watch.writeFailed(Self.full) }
        #expect(watch.isFull)
        watch.writeCommitted()
        watch.writeCommitted()
        #expect(!watch.isFull)
        let seen = events.all
        #expect(seen.count == 2, "\(seen)")
        #expect(seen.first == .full(message: Self.full.message))
        guard case .freed(let refused, _) = seen.last else {
            Issue.record("no freed event: \(seen)")
            return
        }
        #expect(refused == 5)
    }

    @Test func otherFailuresSayNothingAboutTheDisk() {
        let watch = StorageWatch(settle: .zero)
        let events = Told(watch)
        watch.writeFailed(StoreError(.busy, "locked"))
        watch.writeFailed(StoreError(.io, "read-only"))
        watch.writeFailed(CancellationError())
        #expect(!watch.isFull && events.all.isEmpty)
    }

    @Test func smallWritesThatFitBetweenRefusedOnesDoNotEndTheEpisode() {
        let watch = StorageWatch(settle: .seconds(3600))
        let events = Told(watch)
        for _ in 0..<10 {
            watch.writeFailed(Self.full)
            watch.writeCommitted()
        }
        #expect(!watch.isFull, "the last write committed")
        #expect(events.all == [.full(message: Self.full.message)])
    }

    @Test func sqliteSaysAFullDiskWithItsOwnCodes() {
        // SQLITE_FULL (13), and an I/O error whose system error is ENOSPC (SQLITE_IOERR_SHMSIZE:
        // growing the -shm file); another I/O error is none.
        #expect(StoreError(sqliteCode: 13, "x").code == .storageFull)
        #expect(StoreError(sqliteCode: 10 | (19 << 8), systemError: ENOSPC, "x").code == .storageFull)
        #expect(StoreError(sqliteCode: 10 | (3 << 8), systemError: EIO, "x").code == .io)
        #expect(StoreError(sqliteCode: 13, "x").message.contains("SQLite result code 13"))
    }

    @Test func postgresSaysAFullDiskWithSQLState53100() {
        #expect(PostgresConnection.code(sqlState: "53100") == .storageFull)
        #expect(PostgresConnection.code(sqlState: "53200") == .io)
    }

    /// An unreachable PostgreSQL is `.unavailable` (the server answers 503 `databaseUnavailable`),
    /// and connections give up on an unanswered statement (`tcp_user_timeout`) and a dead peer
    /// (keepalives) by default (`docs/reliability.md`, "Network faults").
    @Test func anUnreachablePostgresIsUnavailableAndDeadPathsAreNoticed() throws {
        let dead = try DeadPort()
        defer { withExtendedLifetime(dead) {} }
        let settings = try PostgresSettings(url: "postgresql://u:p@127.0.0.1:\(dead.port)/d")
        #expect(settings.conninfo.contains("tcp_user_timeout='15000'") && settings.conninfo.contains("keepalives_idle='30'"))
        #expect(try PostgresSettings(url: "postgresql://u:p@127.0.0.1:1/d?tcp_user_timeout=5000").conninfo.contains("tcp_user_timeout='5000'"))
        do {
            _ = try PostgresConnection(settings)
            Issue.record("connected to a closed port")
        } catch let error as StoreError {
            #expect(error.code == .unavailable, "\(error)")
        }
    }
}
