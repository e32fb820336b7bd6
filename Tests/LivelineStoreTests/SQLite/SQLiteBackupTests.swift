import Foundation
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// ``SQLiteBackup``: a copy taken while a writer commits holds every commit before it began,
/// passes `PRAGMA integrity_check`, and is one file for its owner alone.
struct SQLiteBackupTests {
    @Test func aCopyTakenWhileAWriterCommitsHoldsEveryCommitBeforeItBegan() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            try database.write { try $0.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
            // Committed ids with the moment each commit returned.
            let committed = Mutex<[(id: Int, at: Date)]>([])
            let stop = Atomic<Bool>(false)
            let writer = Thread {
                var id = 0
                while !stop.load(ordering: .relaxed) {
                    id += 1
                    let row = id
                    try? database.write {
                        _ = try $0.execute("INSERT INTO t VALUES ($1, $2)", [.integer(Int64(row)), .text(String(repeating: "x", count: 500))])
                    }
                    let at = Date()
                    committed.withLock { $0.append((row, at)) }
                }
            }
            writer.start()
            defer { stop.store(true, ordering: .relaxed) }
            #expect(eventuallyBlocking { committed.withLock { $0.count } >= 2_000 }, "the writer commits")

            let copy = folder.appendingPathComponent("copy.sqlite").path
            let summary = try SQLiteBackup.copy(from: database.path, to: copy)
            let afterCopy = committed.withLock { $0.count }
            #expect(eventuallyBlocking { committed.withLock { $0.count } > afterCopy + 100 }, "the writer went on")
            stop.store(true, ordering: .relaxed)

            let before = committed.withLock { rows in rows.filter { $0.at < summary.asOf }.map(\.id) }
            let copied = try SQLiteDatabase(path: copy)
            let ids = Set(try copied.read { try $0.query("SELECT id FROM t").map { try $0.int("id") } })
            #expect(before.count >= 2_000 && before.allSatisfy(ids.contains), "every commit before the copy began is in it")
            #expect(ids == Set(1...(ids.max() ?? 0)), "a snapshot: the commits up to one, all of them, in order")
            #expect(try copied.read { try $0.queryOne("PRAGMA integrity_check")?.string("integrity_check") } == "ok")
            #expect(summary.pages > 0 && summary.bytes == summary.pages * 4_096)
            let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test func aCopyIsOneFileWrittenOnlyToANewPathFromAnExistingOne() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            try database.write { try $0.executeScript("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)") }
            let copy = folder.appendingPathComponent("copy.sqlite").path
            _ = try SQLiteBackup.copy(from: database.path, to: copy)
            // One file: no WAL beside it, and the journal mode a reader finds is DELETE.
            #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: copy + ".partial"))
            let header = try #require(FileHandle(forReadingAtPath: copy)).readData(ofLength: 20)
            #expect(header[18] == 1 && header[19] == 1, "file format versions 1: a rollback journal, not WAL")

            #expect { _ = try SQLiteBackup.copy(from: database.path, to: copy) } throws: {
                ($0 as? StoreError)?.message.contains("exists already") == true
            }
            let missing = folder.appendingPathComponent("none.sqlite").path
            #expect { _ = try SQLiteBackup.copy(from: missing, to: folder.appendingPathComponent("other.sqlite").path) } throws: {
                ($0 as? StoreError)?.message.contains("there is no database at") == true
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("other.sqlite").path))
        }
    }
}
