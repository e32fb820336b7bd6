import Foundation
import LivelineStore
import LivelineTestSupport
import Testing

/// A PostgreSQL transaction sends its `BEGIN` with its first statement, in one pipeline
/// (`docs/engine.md`, "Storage"): it behaves as one that began on its own.
@Suite struct PostgresTransactionTests {
    /// The server process of the connection a transaction runs on.
    static func backend(_ database: PostgresDatabase) throws -> Int {
        try #require(try database.write { try $0.queryOne("SELECT pg_backend_pid() AS pid") }).int("pid")
    }

    @Test func aConnectionTheServerDroppedCostsNoTransaction() throws {
        let (database, drop) = try TestPostgres.freshDatabase(poolSize: 1)
        defer { drop() }
        let other = try PostgresDatabase(settings: database.settings, poolSize: 1)
        defer { other.close() }
        try database.write { try $0.executeScript("CREATE TABLE notes (body TEXT NOT NULL)") }
        for round in 0..<3 {
            let dropped = try Self.backend(database)
            try other.write { _ = try $0.query("SELECT pg_terminate_backend($1) AS done", [SQLValue(dropped)]) }
            // The pool's one connection is gone: the write's first statement finds out, and the
            // whole write runs again on a new connection.
            try database.write { try $0.execute("INSERT INTO notes (body) VALUES ($1)", [.text("note \(round)")]) }
            #expect(try Self.backend(database) != dropped)
        }
        let count = try database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM notes") }
        #expect(try count?.int("n") == 3)
    }

    @Test func aFailingFirstStatementRollsBackAndTheConnectionServesOn() throws {
        let (database, drop) = try TestPostgres.freshDatabase(poolSize: 1)
        defer { drop() }
        try database.write { try $0.executeScript("CREATE TABLE notes (body TEXT NOT NULL UNIQUE)") }
        try database.write { try $0.execute("INSERT INTO notes (body) VALUES ('a')", []) }
        let pid = try Self.backend(database)
        #expect(throws: StoreError.self) {
            try database.write { transaction in
                try transaction.execute("INSERT INTO notes (body) VALUES ('a')", [])
                try transaction.execute("INSERT INTO notes (body) VALUES ('b')", [])
            }
        }
        // Nothing of it stayed, and the same connection begins the next one afresh (in the
        // aborted one, every statement would fail).
        let (count, after) = try database.write { transaction in
            (
                try transaction.queryOne("SELECT COUNT(*) AS n FROM notes")?.int("n"),
                try transaction.queryOne("SELECT pg_backend_pid() AS pid")?.int("pid")
            )
        }
        #expect(count == 1)
        #expect(after == pid)
    }

    @Test func statementsOfOneTransactionShareIt() throws {
        let (database, drop) = try TestPostgres.freshDatabase(poolSize: 1)
        defer { drop() }
        let transactions = try database.write { transaction in
            try (0..<3).map { _ in try #require(try transaction.queryOne("SELECT txid_current() AS id")).int("id") }
        }
        #expect(Set(transactions).count == 1)
        let reads = try database.read { transaction in
            try (0..<2).map { _ in try #require(try transaction.queryOne("SELECT current_setting('transaction_read_only') AS ro")).string("ro") }
        }
        #expect(reads == ["on", "on"])
        let isolation = try database.read { try $0.queryOne("SELECT current_setting('transaction_isolation') AS level") }
        #expect(try isolation?.string("level") == "repeatable read")
    }

    /// A body without a statement returns its value, counts no change, and leaves the connection
    /// to serve the next transaction.
    @Test func aTransactionWithoutAStatementChangesNothing() throws {
        let (database, drop) = try TestPostgres.freshDatabase(poolSize: 1)
        defer { drop() }
        let pid = try Self.backend(database)
        let version = try database.changeVersion()
        #expect(try database.write { _ in 42 } == 42)
        #expect(try database.read { _ in "read" } == "read")
        #expect(try database.changeVersion() == version, "nothing counted as a change")
        #expect(try Self.backend(database) == pid)
    }
}
