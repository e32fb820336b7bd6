internal import CSQLite
import Foundation

/// A consistent copy of an SQLite database that a server may be writing, made with SQLite's
/// online backup API (SQLite, "Online Backup API"): every page is copied in one read transaction,
/// so the copy is the database as of that transaction's start — every change committed before
/// it, none after — while the writer goes on (WAL: readers do not block it). A file copy could
/// tear: a page half-written, the WAL and the file out of step.
public enum SQLiteBackup {
    /// What a copy holds.
    public struct Summary: Sendable {
        /// When the copy's read transaction began: it holds every commit before this moment.
        public var asOf: Date
        /// Pages copied, and the copy's size in bytes.
        public var pages: Int
        public var bytes: Int
    }

    /// How long a busy source is retried (its read lock refused while a checkpoint resets the WAL).
    static let busyRetries = 100

    /// Copies the database file at `source` to `destination` (which must not exist): written
    /// beside it, checked with `PRAGMA integrity_check`, made one file (journal mode DELETE) for
    /// its owner alone (0600), flushed to disk, then renamed into place. Throws, leaving no `destination`, on any failure.
    public static func copy(from source: String, to destination: String) throws -> Summary {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError(.io, "\(destination) exists already; a copy is written only to a new file")
        }
        guard FileManager.default.fileExists(atPath: source) else { throw StoreError(.io, "there is no database at \(source)") }
        let partial = destination + ".partial"
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        do {
            // The owner's only from its first byte (it holds token hashes); SQLite takes an empty
            // file as a new database, and gives its journal the file's mode.
            let created = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard created >= 0 else { throw StoreError(.io, "could not create \(partial): \(String(cString: strerror(errno)))") }
            close(created)
            var summary = try copyPages(from: source, to: partial)
            summary.bytes = try flush(partial)
            guard rename(partial, destination) == 0 else {
                throw StoreError(.io, "could not rename \(partial) to \(destination): \(String(cString: strerror(errno)))")
            }
            try flushFolder(of: destination)
            return summary
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
            throw error
        }
    }

    /// The backup itself, into `partial`, then its check and the switch to one file.
    private static func copyPages(from source: String, to partial: String) throws -> Summary {
        let reader = try SQLiteConnection(path: source, readOnly: true)
        let writer = try SQLiteConnection(path: partial, readOnly: false, wal: false)
        defer { withExtendedLifetime(reader) {} }  // open until the backup is finished
        guard let backup = sqlite3_backup_init(writer.handle, "main", reader.handle, "main") else {
            try writer.check(sqlite3_errcode(writer.handle), "start the backup of \(source)")
            throw StoreError(.io, "could not start the backup of \(source)")
        }
        var asOf = Date()
        var code = SQLITE_OK
        for _ in 0...busyRetries {
            asOf = Date()
            code = sqlite3_backup_step(backup, -1)  // every page, in one read transaction
            guard code == SQLITE_BUSY || code == SQLITE_LOCKED else { break }
            sqlite3_sleep(50)
        }
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw StoreError(sqliteCode: code, "could not copy \(source): \(String(cString: sqlite3_errstr(code)))") }
        try writer.check(finished, "finish the backup of \(source)")
        let check = try writer.run("PRAGMA integrity_check", [], collect: true).rows.compactMap(\.values.first)
        guard check == [.text("ok")] else {
            throw StoreError(.io, "the copy of \(source) fails PRAGMA integrity_check: \(check.prefix(5))")
        }
        // The pages carry the source's WAL mode; a copy is one file.
        _ = try writer.run("PRAGMA journal_mode = DELETE", [], collect: true)
        return Summary(asOf: asOf, pages: pages, bytes: 0)
    }

    /// Flushes the closed file at `path` to disk; its size.
    private static func flush(_ path: String) throws -> Int {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(.io, "could not open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw StoreError(.io, "could not flush \(path): \(String(cString: strerror(errno)))") }
        return Int(lseek(descriptor, 0, SEEK_END))
    }

    /// Flushes the folder holding `path`, so a rename into it survives a power cut.
    public static func flushFolder(of path: String) throws {
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw StoreError(.io, "could not open the folder of \(path): \(String(cString: strerror(errno)))") }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw StoreError(.io, "could not flush the folder of \(path): \(String(cString: strerror(errno)))") }
    }
}
