import Foundation
import Synchronization
import Testing
import LivelineStore

/// Group commit on SQLite's one writer: writes that arrive together share a transaction, each
/// keeps only its own changes, and none is answered before the commit that holds it.
struct SQLiteWriteGroupTests {
    struct Refused: Error, Equatable { let index: Int }

    @Test func concurrentWritesShareCommitsEachKeepingOnlyItsOwnChanges() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            try database.write { try $0.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, thread INTEGER NOT NULL)") }
            let threads = 8
            let perThread = 150
            let problems = Mutex<[String]>([])
            // Threads of their own, all at once (concurrentPerform runs no more than the cores).
            let finished = DispatchGroup()
            for thread in 0..<threads {
                finished.enter()
                Thread {
                    defer { finished.leave() }
                    for step in 0..<perThread {
                        let id = thread * perThread + step
                        // Every fifth write inserts, then throws: its row must not stay.
                        let refuses = step % 5 == 0
                        do {
                            try database.write { transaction in
                                try transaction.execute("INSERT INTO t (id, thread) VALUES ($1, $2)", [.integer(Int64(id)), .integer(Int64(thread))])
                                if refuses { throw Refused(index: id) }
                            }
                            if refuses { problems.withLock { $0.append("write \(id) threw nothing") } }
                            // Answered only after its commit: another connection sees the row at once.
                            let seen = try database.read {
                                try $0.queryOne("SELECT count(*) AS n FROM t WHERE id = $1", [.integer(Int64(id))])?.int("n")
                            }
                            if seen != 1 { problems.withLock { $0.append("write \(id) was answered before a reader could see it") } }
                        } catch let error as Refused {
                            if error.index != id { problems.withLock { $0.append("write \(id) got another write's error \(error.index)") } }
                            if !refuses { problems.withLock { $0.append("write \(id) failed") } }
                        } catch {
                            problems.withLock { $0.append("write \(id): \(error)") }
                        }
                    }
                }.start()
            }
            finished.wait()
            #expect(problems.withLock { $0 } == [])
            let ids = try database.read { try $0.query("SELECT id FROM t ORDER BY id").map { try $0.int("id") } }
            let expected = (0..<threads * perThread).filter { ($0 % perThread) % 5 != 0 }
            #expect(ids == expected)
            // Eight writers at once on one connection: commits held several writes each, and a
            // member rolled back to its savepoint counted as no change.
            let counts = database.groupCommitCounts
            #expect(counts.writes == threads * perThread + 1)
            #expect(counts.commits < counts.writes)
        }
    }

    @Test func aWriteAloneThatThrowsLeavesNothingAndTheNextOneCommits() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            try database.write { try $0.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY)") }
            #expect(throws: Refused(index: 1)) {
                try database.write { transaction in
                    try transaction.execute("INSERT INTO t (id) VALUES (1)", [])
                    throw Refused(index: 1)
                }
            }
            try database.write { try $0.execute("INSERT INTO t (id) VALUES (2)", []) }
            #expect(try database.read { try $0.query("SELECT id FROM t").map { try $0.int("id") } } == [2])
            #expect(database.groupCommitCounts.writes == 3)
        }
    }
}
