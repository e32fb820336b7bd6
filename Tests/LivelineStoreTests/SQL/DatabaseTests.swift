import Foundation
import Synchronization
import Testing
import LivelineStore

/// The ``Database`` contract every backend keeps: placeholders, binding, transactions, snapshots.
struct DatabaseTests {
    private static func withTable<T>(_ factory: DatabaseFactory, _ body: (any Database) throws -> T) throws -> T {
        try factory.withDatabase { database in
            try database.write { transaction in
                try transaction.executeScript(
                    """
                    CREATE TABLE items (id \(database.dialect.render("{{primaryKey}}")), a TEXT, b BIGINT, c \
                    \(database.dialect.render("{{blob}}")), d DOUBLE PRECISION, UNIQUE (a))
                    """)
            }
            return try body(database)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func placeholdersBindByNumberIncludingReuseAndNull(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            let id = try database.write { transaction in
                try transaction.queryOne(
                    "INSERT INTO items (a, b, c, d) VALUES ($2, $1, $3, $4) RETURNING id", [42, "second first", nil, 1.5]
                )!.int("id")
            }
            let row = try database.read { transaction in
                try transaction.queryOne("SELECT a, b, c, d, $1 AS echo FROM items WHERE id = $2 AND b = $3 AND a <> $1", ["x", SQLValue(id), 42])
            }
            #expect(try row?.string("a") == "second first")
            #expect(try row?.int("b") == 42)
            #expect(row?["c"] == .null)
            #expect(try row?.double("d") == 1.5)
            #expect(try row?.string("echo") == "x")
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func textAndBytesRoundTripExactly(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            // PostgreSQL's text holds no NUL character: refused with a clear error, nothing stored.
            var texts = ["", "Grüße 🍋", String(repeating: "x", count: 10_000)]
            if database.dialect == .sqlite {
                texts.append("a\u{0}b")
            } else {
                #expect {
                    try database.write { try $0.execute("INSERT INTO items (a) VALUES ($1)", [.text("a\u{0}b")]) }
                } throws: {
                    ($0 as? StoreError)?.code == .invalidArgument && "\($0)".contains("NUL")
                }
            }
            try database.write { transaction in
                for (index, text) in texts.enumerated() {
                    try transaction.execute(
                        "INSERT INTO items (a, b, c) VALUES ($1, $2, $3)", [.text(text), SQLValue(index), .blob(Array(text.utf8))])
                }
            }
            let rows = try database.read { try $0.query("SELECT a, c FROM items ORDER BY b") }
            #expect(try rows.map { try $0.string("a") } == texts)
            #expect(try rows.map { try $0.blob("c") } == texts.map { Array($0.utf8) })
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func injectionLookingTextIsStoredAsData(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            let evil = "x'); DROP TABLE items; --"
            try database.write { try $0.execute("INSERT INTO items (a) VALUES ($1)", [.text(evil)]) }
            let stored = try database.read { try $0.queryOne("SELECT a FROM items WHERE a = $1", [.text(evil)])?.string("a") }
            #expect(stored == evil)
            #expect(try database.read { try $0.query("SELECT id FROM items") }.count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func executeCountsChangedRows(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            let counts = try database.write { transaction in
                try (1...3).map { try transaction.execute("INSERT INTO items (a, b) VALUES ($1, 1)", [SQLValue("row \($0)")]) }
                    + [try transaction.execute("UPDATE items SET b = 2 WHERE b = $1", [1])]
                    + [try transaction.execute("SELECT * FROM items")]
            }
            #expect(counts == [1, 1, 1, 3, 0])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func writeRollsBackWhenTheBodyThrows(_ factory: DatabaseFactory) throws {
        struct Planned: Error {}
        try Self.withTable(factory) { database in
            #expect(throws: Planned.self) {
                try database.write { transaction in
                    try transaction.execute("INSERT INTO items (a) VALUES ($1)", ["gone"])
                    throw Planned()
                }
            }
            #expect(try database.read { try $0.query("SELECT id FROM items") }.isEmpty)
            // The writer is usable again afterwards.
            try database.write { try $0.execute("INSERT INTO items (a) VALUES ($1)", ["kept"]) }
            #expect(try database.read { try $0.query("SELECT id FROM items") }.count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func constraintViolationHasItsCodeAndNoBoundValues(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            let secret = "secret-token-0123456789"
            try database.write { try $0.execute("INSERT INTO items (a) VALUES ($1)", [.text(secret)]) }
            do {
                try database.write { try $0.execute("INSERT INTO items (a) VALUES ($1)", [.text(secret)]) }
                Issue.record("a duplicate was accepted")
            } catch let error as StoreError {
                #expect(error.code == .constraint)
                #expect(!error.description.contains(secret))
            }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func misuseIsReportedNotCrashed(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            #expect { try database.write { try $0.execute("INSERT INTO items (a) VALUES ($1)", []) } } throws: {
                ($0 as? StoreError)?.code == .misuse
            }
            #expect { try database.read { try $0.query("SELECT 1; SELECT 2") } } throws: {
                ($0 as? StoreError)?.code == .misuse
            }
            #expect { try database.read { try $0.query("SELEC nonsense") } } throws: {
                ($0 as? StoreError)?.code == .misuse
            }
            let escaped = try database.read { $0 }
            #expect { try escaped.query("SELECT 1") } throws: { ($0 as? StoreError)?.code == .misuse }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func readSeesOneSnapshotWhileAWriteIsInFlight(_ factory: DatabaseFactory) throws {
        try Self.withTable(factory) { database in
            try database.write { try $0.execute("INSERT INTO items (a, b) VALUES ('counter', 1)") }
            let writerHasUpdated = DispatchSemaphore(value: 0)
            let readerHasLooked = DispatchSemaphore(value: 0)
            let writerDone = DispatchSemaphore(value: 0)
            let writerError = Mutex<(any Error)?>(nil)
            let query = "SELECT b FROM items WHERE a = 'counter'"
            let (first, duringWrite, afterCommit) = try database.read { transaction in
                let first = try transaction.queryOne(query)!.int("b")
                DispatchQueue.global().async {
                    do {
                        try database.write { transaction in
                            try transaction.execute("UPDATE items SET b = 2 WHERE a = 'counter'")
                            writerHasUpdated.signal()
                            readerHasLooked.wait()
                        }
                    } catch {
                        writerError.withLock { $0 = error }
                        writerHasUpdated.signal()
                    }
                    writerDone.signal()
                }
                writerHasUpdated.wait()
                let duringWrite = try transaction.queryOne(query)!.int("b")
                readerHasLooked.signal()
                writerDone.wait()
                let afterCommit = try transaction.queryOne(query)!.int("b")
                return (first, duringWrite, afterCommit)
            }
            #expect(writerError.withLock { $0 } == nil)
            #expect(first == 1)
            #expect(duringWrite == 1)
            #expect(afterCommit == 1)
            #expect(try database.read { try $0.queryOne(query)!.int("b") } == 2)
        }
    }
}
