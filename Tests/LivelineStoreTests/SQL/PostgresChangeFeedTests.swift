import Foundation
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// Instances sharing one PostgreSQL database learn of each other's commits (docs/operations.md, "Several
/// instances"): LISTEN/NOTIFY on the schema's channel; a lost listening connection listens again.
@Suite struct PostgresChangeFeedTests {
    /// Polls `condition` every 20 ms for up to `seconds`.
    static func within(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    @Test func anotherInstancesCommitChangesTheVersionAndWakesTheHandlers() throws {
        try DatabaseFactory.postgres.withDatabase { first in
            try first.write { try $0.executeScript("CREATE TABLE items (id BIGINT PRIMARY KEY)") }
            let second = try DatabaseFactory.postgres.another(first)
            let woken = Atomic<Int>(0)
            second.onChangesElsewhere { woken.add(1, ordering: .relaxed) }
            let before = try #require(try second.changeVersion())
            // Listening takes a moment: its first connection counts as a change (nothing missed).
            #expect(try Self.within(5) { try second.changeVersion() != before })
            let listening = try #require(try second.changeVersion())

            try first.write { try $0.execute("INSERT INTO items (id) VALUES (1)") }
            #expect(try Self.within(5) { try second.changeVersion() != listening }, "the other instance's commit is seen")
            #expect(Self.within(5) { woken.load(ordering: .relaxed) >= 1 })
            // A transaction that changed nothing notifies nobody (the handlers run for
            // notifications only; the version also moves every few seconds on its own, so that
            // caches never trust a quiet feed for long).
            // Drained first: the wake of the listening connection's start may arrive after the
            // insert's (seen under load); the count is read once it stopped moving.
            var wakes = woken.load(ordering: .relaxed)
            for _ in 0..<20 {
                Thread.sleep(forTimeInterval: 0.25)
                let now = woken.load(ordering: .relaxed)
                if now == wakes { break }
                wakes = now
            }
            try first.write { try $0.execute("UPDATE items SET id = 2 WHERE id = 99") }
            Thread.sleep(forTimeInterval: 0.5)
            #expect(woken.load(ordering: .relaxed) == wakes)
        }
    }

    @Test func aLostListeningConnectionListensAgainAndCatchesUp() throws {
        try DatabaseFactory.postgres.withDatabase { first in
            let second = try DatabaseFactory.postgres.another(first)
            let woken = Atomic<Int>(0)
            second.onChangesElsewhere { woken.add(1, ordering: .relaxed) }
            _ = try second.changeVersion()
            let schema = try #require(try first.read { try $0.queryOne("SELECT current_schema() AS s")?.string("s") })
            let listener = { () throws -> Int? in
                try first.read {
                    try $0.queryOne(
                        "SELECT pid FROM pg_stat_activity WHERE query = $1 ORDER BY backend_start DESC LIMIT 1", [.text("LISTEN liveline_\(schema)")]
                    )?.int("pid")
                }
            }
            let pid = try #require(try Self.within(5) { try listener() != nil } ? listener() : nil)
            try first.write { _ = try $0.query("SELECT pg_terminate_backend($1) AS done", [SQLValue(pid)]) }
            #expect(Self.within(10) { woken.load(ordering: .relaxed) >= 1 }, "after listening again it counts one change")
            #expect(try Self.within(5) { try listener().map { $0 != pid } ?? false }, "a new listening connection")
        }
    }
}

/// The PostgreSQL connection's own rules.
@Suite struct PostgresConnectionTests {
    /// A caught failure inside a write still fails the write: PostgreSQL aborted the transaction,
    /// and its COMMIT would roll back without an error.
    @Test func aWriteWhoseStatementFailedIsNotReportedCommitted() throws {
        try DatabaseFactory.postgres.withDatabase { database in
            try database.write { try $0.executeScript("CREATE TABLE items (id BIGINT PRIMARY KEY)") }
            #expect(throws: StoreError.self) {
                try database.write { transaction in
                    try transaction.execute("INSERT INTO items (id) VALUES (1)")
                    _ = try? transaction.execute("INSERT INTO items (id) VALUES (1)")  // a unique violation, caught
                }
            }
            #expect(try database.read { try $0.query("SELECT id FROM items") }.isEmpty, "nothing of it was committed")
        }
    }

    /// A pooled connection the server dropped (a restart, a timeout) costs no request: the next
    /// transaction runs on a new connection.
    @Test func aDroppedPooledConnectionIsReplacedWithoutAFailure() throws {
        try DatabaseFactory.postgres.withDatabase { database in
            let pid = try #require(try database.read { try $0.queryOne("SELECT pg_backend_pid() AS pid")?.int("pid") })
            let other = try DatabaseFactory.postgres.another(database)
            try other.write { _ = try $0.query("SELECT pg_terminate_backend($1) AS done", [SQLValue(pid)]) }
            Thread.sleep(forTimeInterval: 0.2)
            let again = try database.read { try $0.queryOne("SELECT pg_backend_pid() AS pid")?.int("pid") }
            #expect(again != nil && again != pid)
        }
    }
}
