internal import CSQLite
import Foundation

/// One SQLite connection: owns its `sqlite3*` handle and the statements prepared on it.
///
/// Opened with `SQLITE_OPEN_NOMUTEX`, so it must only ever be used by one thread at a time;
/// ``SQLiteDatabase`` confines it behind a `Mutex` (the writer) or a check-out pool (readers).
/// It is `@unchecked Sendable` only so that those two can hand it from thread to thread (region
/// checking cannot follow a connection into a `Mutex` body that also calls the caller's closure);
/// nothing else holds one. Every SQLite return code is checked with ``check(_:_:)``. Related
/// SQLite documentation: "Using SQLite In Multi-Threaded Applications", "Write-Ahead Logging".
final class SQLiteConnection: @unchecked Sendable {
    /// How long a statement waits for another connection or process (e.g. `liveline users add`
    /// while the server runs) to release its lock before failing with `.busy`.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Statements kept prepared per connection; beyond this the cache is emptied (SQL built from
    /// data would otherwise grow it without bound).
    static let statementCacheLimit = 512

    /// The writer's page cache, in KiB (`PRAGMA cache_size`, negative: KiB; about 990 pages of
    /// 4 KiB); the checkpointer's connection, opened for writing, has the same. It holds the inner
    /// pages of the large tables' B-trees and what a transaction changes; the other pages are read
    /// from the kernel's page cache (`pread`). Small because a large one costs at commits: in the
    /// SQLite of Debian 12 (3.40), the commit of a transaction in which a B-tree page split and
    /// two new pages swapped numbers (`balance_nonroot` renumbers one through the lock-byte
    /// page's number, past the end of a file under 1 GiB) walks every page the cache holds; the
    /// figures are in `docs/decisions/small-page-caches.md`.
    static let writerCacheKilobytes = 4_096
    /// Changed pages the writer keeps in one transaction before it writes some to the WAL
    /// (`PRAGMA cache_spill`; 65,536 pages of 4 KiB, 256 MB). The cache grows past
    /// ``writerCacheKilobytes`` only with a transaction's changed pages, and spills none until it
    /// holds this many pages.
    static let writerSpillPages = 65_536
    /// Each reader's page cache, in KiB. SQLite empties a connection's cache when a read finds the
    /// database changed by another connection since its last read.
    static let readerCacheKilobytes = 1_024
    let path: String
    let handle: OpaquePointer
    /// Prepared statements by their SQL text as the caller wrote it (with `$n`).
    private var statements: [String: OpaquePointer] = [:]
    /// Column name → position of each prepared statement's result, read once per preparation
    /// (SQLite prepares a statement again by itself when the schema changed: its
    /// `SQLITE_STMTSTATUS_REPREPARE` count then moves and the names are read again).
    private var resultColumns: [OpaquePointer: (reprepares: Int32, names: [String: Int])] = [:]
    /// The main database file, once ``walIndexHeader()`` looked it up.
    private var shmFile: UnsafeMutablePointer<sqlite3_file>?

    /// Opens (and for writers creates) the database file at `path`.
    ///
    /// A writer switches the file to WAL (`journal_mode` is persistent); every connection gets
    /// `foreign_keys=ON`, the busy timeout and its ``tuningPragmas(readOnly:)``.
    /// `create`: a writer creates a missing file (false: it must exist, and is left as it is).
    /// `wal`: false leaves a writer in the file's journal mode (a backup's copy: no WAL beside it).
    init(path: String, readOnly: Bool, create: Bool = true, wal: Bool = true) throws {
        self.path = path
        var opened: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let code = sqlite3_open_v2(path, &opened, access | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // > Whether or not an error occurs when it is opened, resources associated with the
            // > database connection handle should be released by passing it to sqlite3_close().
            sqlite3_close(opened)
            throw StoreError(sqliteCode: code, "could not open the database at \(path): \(message)")
        }
        handle = opened
        try check(sqlite3_extended_result_codes(handle, 1), "enable extended result codes")
        try check(sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds), "set the busy timeout")
        try executeScript("PRAGMA foreign_keys = ON")
        if !readOnly && wal {
            let mode = try run("PRAGMA journal_mode = WAL", [], collect: true).rows.first?.values.first
            guard mode == .text("wal") else {
                throw StoreError(.io, "the database at \(path) could not be switched to WAL mode")
            }
            try executeScript("PRAGMA wal_autocheckpoint = \(SQLiteCheckpointer.writerBackstopPages)")
        }
        try executeScript(Self.tuningPragmas(readOnly: readOnly))
    }

    /// How a connection reads and writes, as pragmas: its page cache (``writerCacheKilobytes``,
    /// ``readerCacheKilobytes``) and no memory map; for the writer `synchronous=NORMAL` and
    /// ``writerSpillPages`` (a large transaction, the answers of a fan-out to 100,000 tokens,
    /// keeps its changed pages in memory up to this many instead of writing them to the WAL
    /// part-way). No connection maps the file: every page a connection read through a map stayed
    /// in the process's resident memory, which grew with the part of the database it touched (a
    /// fan-out to a million tokens touches all of a delivery index; the soak)
    /// (`docs/decisions/no-memory-map.md`). The raw write baseline of `liveline-bench upsert`
    /// takes the writer's (``SQLiteDatabase/writerTuningPragmas``).
    static func tuningPragmas(readOnly: Bool) -> String {
        var pragmas = ["PRAGMA cache_size = -\(readOnly ? readerCacheKilobytes : writerCacheKilobytes)", "PRAGMA mmap_size = 0"]
        if !readOnly { pragmas += ["PRAGMA synchronous = NORMAL", "PRAGMA cache_spill = \(writerSpillPages)"] }
        return pragmas.joined(separator: "; ")
    }

    deinit {
        for statement in statements.values {
            sqlite3_finalize(statement)
        }
        sqlite3_close_v2(handle)
    }

    /// Rows inserted, updated or deleted through this connection since it was opened.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Whether a transaction is open on this connection (SQLite rolls one back by itself on some
    /// errors: a full disk, an I/O error).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The first copy of the WAL index's header as it is now, read from SQLite's own mapping of
    /// the `-shm` file (the VFS's `xShmMap` on this connection's file: no lock, no system call,
    /// and no file descriptor of our own — closing one would drop this process's locks on it,
    /// POSIX advisory locks being per process). Every commit, of any process, rewrites it before
    /// its changes become visible (SQLite, "WAL-mode File Format", §2.1 "The WAL-Index Header").
    /// Nil until the connection mapped the index (its first read), or where the VFS cannot say.
    func walIndexHeader() -> WALIndexHeader? {
        if shmFile == nil {
            // The main file stays open as long as the connection: looked up once.
            var file: UnsafeMutablePointer<sqlite3_file>?
            guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK else { return nil }
            shmFile = file
        }
        guard let file = shmFile, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        // Mapped again on every call (a call that finds it mapped only takes the VFS's mutex):
        // the mapping is SQLite's to keep or drop.
        var region: UnsafeMutableRawPointer?
        let code = withUnsafeMutablePointer(to: &region) { pointer in
            pointer.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { map(file, 0, 32_768, 0, $0) }
        }
        guard code == SQLITE_OK, let region else { return nil }
        return WALIndexHeader(
            words: (
                region.load(fromByteOffset: 0, as: UInt64.self), region.load(fromByteOffset: 8, as: UInt64.self),
                region.load(fromByteOffset: 16, as: UInt64.self), region.load(fromByteOffset: 24, as: UInt64.self),
                region.load(fromByteOffset: 32, as: UInt64.self), region.load(fromByteOffset: 40, as: UInt64.self)
            ))
    }

    /// A `PASSIVE` checkpoint: copies what it can of the WAL into the database file without
    /// waiting for the writer or readers (``SQLiteCheckpointer``).
    func checkpointPassive() throws {
        try check(sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil), "checkpoint the WAL")
    }

    /// Rolls back the open transaction, if any; a failure to do so is left to the next `BEGIN`.
    func rollBackIfOpen() {
        if inTransaction { _ = try? run("ROLLBACK", [], collect: false) }
    }

    // MARK: Transactions

    /// Runs `body` between `begin` and `COMMIT`; rolls back when `body` or the commit throws.
    func transaction<T>(begin: String, _ body: (any SQLTransaction) throws -> T) throws -> T {
        try run(begin, [], collect: false)
        let transaction = SQLiteTransaction(connection: self)
        defer { transaction.isOpen = false }
        do {
            let result = try body(transaction)
            try run("COMMIT", [], collect: false)
            return result
        } catch {
            // Some errors (SQLITE_FULL, IOERR, …) already rolled back; ROLLBACK would then fail.
            if sqlite3_get_autocommit(handle) == 0 {
                _ = try? run("ROLLBACK", [], collect: false)
            }
            throw error
        }
    }

    // MARK: Statements

    /// `PRAGMA data_version`: changes when another connection (of any process) committed since
    /// this one last asked. A direct step of its prepared statement (it runs on every pull).
    func dataVersion() throws -> UInt64 {
        let statement = try prepared("PRAGMA data_version")
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_ROW else { throw failure(code, "could not read PRAGMA data_version") }
        return UInt64(bitPattern: sqlite3_column_int64(statement, 0))
    }

    /// Runs one statement; collects its rows when `collect`, and counts the rows it changed.
    ///
    /// The texts' bytes are laid end to end in one buffer that SQLite reads in place
    /// (`SQLITE_STATIC`) until the bindings are cleared before it is freed, instead of copying
    /// each into memory of its own ("Binding Values To Prepared Statements": the pointer stays
    /// valid until the parameter is bound again).
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLValue], collect: Bool) throws -> (rows: [Row], changes: Int) {
        let statement = try prepared(sql)
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard parameters.count == expected else {
            throw StoreError(.misuse, "\(Self.excerpt(sql)) takes \(expected) parameters but was given \(parameters.count)")
        }
        var texts: [UInt8] = []
        for case .text(let text) in parameters { texts.append(contentsOf: text.utf8) }
        return try texts.withUnsafeBufferPointer { texts in
            defer {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            var textOffset = 0
            for (offset, value) in parameters.enumerated() {
                let code = bind(value, at: Int32(offset + 1), texts: texts, textOffset: &textOffset, in: statement)
                try check(code, "bind parameter $\(offset + 1) of \(Self.excerpt(sql))")
            }
            return try step(statement, sql, collect: collect)
        }
    }

    /// Steps `statement` to its end, collecting its rows when `collect`.
    private func step(_ statement: OpaquePointer, _ sql: String, collect: Bool) throws -> (rows: [Row], changes: Int) {
        var rows: [Row] = []
        var columns: [String: Int]?
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw failure(code, "could not run \(Self.excerpt(sql))") }
            guard collect else { continue }
            let names = columns ?? resultColumnNames(of: statement)
            columns = names
            rows.append(Row(columns: names, values: Self.values(of: statement)))
        }
        let changes = sqlite3_stmt_readonly(statement) != 0 ? 0 : Int(sqlite3_changes64(handle))
        return (rows, changes)
    }

    /// Runs `;`-separated statements without parameters or caching.
    func executeScript(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), "could not run \(Self.excerpt(sql))")
    }

    /// The cached prepared statement for `sql`, preparing it on first use.
    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        var rest = ""
        let code = SQLitePlaceholders.rewrite(sql).withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if let tail { rest = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK else { throw failure(code, "could not prepare \(Self.excerpt(sql))") }
        guard let statement else { throw StoreError(.misuse, "the SQL \(Self.excerpt(sql)) holds no statement") }
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            sqlite3_finalize(statement)
            throw StoreError(.misuse, "\(Self.excerpt(sql)) holds several statements; run one at a time or use executeScript")
        }
        if statements.count >= Self.statementCacheLimit {
            for old in statements.values { sqlite3_finalize(old) }
            statements.removeAll()
            resultColumns.removeAll()
        }
        statements[sql] = statement
        return statement
    }

    /// Binds `value` at `index`; a text is read in place from `texts` at `textOffset`, which it
    /// moves past the text (``run(_:_:collect:)`` laid the texts there in their order).
    private func bind(
        _ value: SQLValue, at index: Int32, texts: UnsafeBufferPointer<UInt8>, textOffset: inout Int, in statement: OpaquePointer
    ) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let number):
            return sqlite3_bind_int64(statement, index, number)
        case .real(let number):
            return sqlite3_bind_double(statement, index, number)
        case .text(let text):
            // The UTF-8 bytes with any embedded NUL. An empty text has no bytes there (nor, if all
            // are empty, a buffer): no address, which SQLite would read as NULL, so "" is copied.
            let count = text.utf8.count
            guard count > 0, let base = texts.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, Self.transient) }
            defer { textOffset += count }
            return (base + textOffset).withMemoryRebound(to: CChar.self, capacity: count) {
                sqlite3_bind_text64(statement, index, $0, UInt64(count), Self.static, UInt8(SQLITE_UTF8))
            }
        case .blob(let bytes):
            return bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, !raw.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
                return sqlite3_bind_blob64(statement, index, base, UInt64(raw.count), Self.transient)
            }
        }
    }

    /// The result's column names of `statement`, as read after its last preparation.
    private func resultColumnNames(of statement: OpaquePointer) -> [String: Int] {
        let reprepares = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0)
        if let known = resultColumns[statement], known.reprepares == reprepares { return known.names }
        let names = Self.columnNames(of: statement)
        resultColumns[statement] = (reprepares, names)
        return names
    }

    private static func columnNames(of statement: OpaquePointer) -> [String: Int] {
        var names: [String: Int] = [:]
        for index in 0..<Int(sqlite3_column_count(statement)) {
            let name = String(cString: sqlite3_column_name(statement, Int32(index)))
            if names[name] == nil { names[name] = index }
        }
        return names
    }

    private static func values(of statement: OpaquePointer) -> [SQLValue] {
        (0..<sqlite3_column_count(statement)).map { index in
            switch sqlite3_column_type(statement, index) {
            case SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(statement, index))
            case SQLITE_FLOAT:
                return .real(sqlite3_column_double(statement, index))
            case SQLITE3_TEXT:
                let count = Int(sqlite3_column_bytes(statement, index))
                guard let text = sqlite3_column_text(statement, index) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, index))
                guard let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
            default:
                return .null
            }
        }
    }

    // MARK: Errors

    /// Throws the store error for `code` unless it is `SQLITE_OK`.
    func check(_ code: Int32, _ context: @autoclosure () -> String) throws {
        guard code == SQLITE_OK else { throw failure(code, context()) }
    }

    /// `code` with SQLite's message for this connection. Bound values never appear in it. An I/O
    /// error carries the system's error of the call that failed (`sqlite3_system_errno`): a full
    /// disk can show as one (growing the `-shm` file).
    private func failure(_ code: Int32, _ context: String) -> StoreError {
        let systemError = code & 0xFF == SQLITE_IOERR ? sqlite3_system_errno(handle) : 0
        return StoreError(sqliteCode: code, systemError: systemError, "\(context): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// `sql` on one line and at most 200 characters, for messages.
    static func excerpt(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return "`" + (line.count > 200 ? line.prefix(200) + "…" : line) + "`"
    }

    /// `SQLITE_TRANSIENT`, which Swift does not import (a function-pointer cast macro): SQLite copies
    /// the bound bytes before the call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }

    /// `SQLITE_STATIC` (0): SQLite reads the bound bytes where they are, until they are bound again.
    private static var `static`: sqlite3_destructor_type? { nil }
}

/// The 48 bytes of a WAL index header (``SQLiteConnection/walIndexHeader()``), compared whole.
struct WALIndexHeader: Equatable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5
    }
}
