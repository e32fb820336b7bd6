import Foundation
import Synchronization
import Testing
import LivelineStore

/// What only the SQLite backend promises: the file, its pragmas, and other processes.
struct SQLiteDatabaseTests {
    @Test func opensAWALFileInTheFolderWithForeignKeysNoMemoryMapAndSmallPageCaches() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            #expect(database.path == folder.appendingPathComponent("liveline.sqlite").path)
            #expect(FileManager.default.fileExists(atPath: database.path))
            let pragmas = try database.write { transaction in
                (
                    try transaction.queryOne("PRAGMA journal_mode")?.string("journal_mode"),
                    try transaction.queryOne("PRAGMA foreign_keys")?.int("foreign_keys"),
                    try transaction.queryOne("PRAGMA synchronous")?.int("synchronous")
                )
            }
            #expect(pragmas.0 == "wal")
            #expect(pragmas.1 == 1)
            #expect(pragmas.2 == 1)  // NORMAL
            #expect(try database.read { try $0.queryOne("PRAGMA foreign_keys")?.int("foreign_keys") } == 1)
            // No connection maps the file (its mapped pages stayed in resident memory).
            #expect(try database.write { try $0.queryOne("PRAGMA mmap_size")?.int("mmap_size") } == 0)
            #expect(try database.read { try $0.queryOne("PRAGMA mmap_size")?.int("mmap_size") } == 0)
            // A small page cache for the writer (4 MB) and a smaller one for each reader (1 MB),
            // in KiB (negative).
            #expect(try database.write { try $0.queryOne("PRAGMA cache_size")?.int("cache_size") } == -4_096)
            #expect(try database.read { try $0.queryOne("PRAGMA cache_size")?.int("cache_size") } == -1_024)
        }
    }

    @Test func readConnectionsRefuseWrites() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            try database.write { try $0.executeScript("CREATE TABLE t (x INTEGER)") }
            #expect { try database.read { try $0.execute("INSERT INTO t VALUES (1)") } } throws: {
                ($0 as? StoreError)?.code == .io
            }
        }
    }

    @Test func aMissingFolderIsAClearIOError() {
        #expect {
            try SQLiteDatabase(path: "/nonexistent-liveline-folder/liveline.sqlite")
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .io && error?.message.contains("/nonexistent-liveline-folder/liveline.sqlite") == true
        }
    }

    @Test func aFileThatIsNotADatabaseIsCorrupt() throws {
        try TemporaryFolder.with { folder in
            let path = folder.appendingPathComponent("liveline.sqlite").path
            try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
            #expect { try SQLiteDatabase(path: path) } throws: { ($0 as? StoreError)?.code == .corrupt }
        }
    }

    /// Two database objects on one file stand for the server and `liveline users add`: their
    /// writers take turns through the busy timeout instead of failing.
    @Test func twoOpenersOfOneFileWaitForEachOther() throws {
        try TemporaryFolder.with { folder in
            let first = try SQLiteDatabase(folder: folder)
            let second = try SQLiteDatabase(folder: folder)
            try first.write { try $0.executeScript("CREATE TABLE t (x INTEGER)") }
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                let database = worker.isMultiple(of: 2) ? first : second
                for value in 0..<100 {
                    do {
                        try database.write { try $0.execute("INSERT INTO t VALUES ($1)", [SQLValue(value)]) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(try second.read { try $0.queryOne("SELECT count(*) AS n FROM t")?.int("n") } == 400)
        }
    }
}
