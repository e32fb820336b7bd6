internal import CLibPQ
import Foundation

/// One libpq connection: owns its `PGconn*` and the statements prepared on it.
///
/// Used by one thread at a time: ``PostgresDatabase`` hands it out from its pool for one
/// transaction. `@unchecked Sendable` only so the pool can move it between threads. Every libpq
/// result is checked; messages never carry bound values or the password (`docs/engine.md`,
/// "Storage"). Related PostgreSQL documentation: "libpq — C Library" (Database Connection Control
/// Functions, Command Execution Functions).
final class PostgresConnection: @unchecked Sendable {
    /// Statements kept prepared per connection; beyond this they are all deallocated (SQL built
    /// from data would otherwise grow the cache without bound).
    static let statementCacheLimit = 512

    private let handle: OpaquePointer
    private let redaction: PostgresSettings
    /// How long one statement may run (`SET statement_timeout` of every connection).
    var statementTimeoutMilliseconds: Int { redaction.statementTimeoutMilliseconds }
    /// Whether the last committed transaction inserted, updated or deleted rows (or ran a script).
    private(set) var lastTransactionChanged = false
    /// The `BEGIN` of the open transaction while no statement of it was sent yet.
    private var pendingBegin: String?
    /// A pipeline that could not be sent or read whole: what is queued on the connection is not
    /// known, so it is not used again.
    private var unusable = false
    /// Prepared statement names by the SQL text.
    private var statements: [String: String] = [:]
    private var nextStatement = 0

    /// Connects with `settings`; throws an `.unavailable` (unreachable, refused, timed out,
    /// authentication) or `.misuse` error naming the server, never the password.
    init(_ settings: PostgresSettings) throws {
        redaction = settings
        guard let connection = PQconnectdb(settings.conninfo) else {
            throw StoreError(.unavailable, "could not connect to PostgreSQL at \(settings.location): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = settings.redact(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw StoreError(.unavailable, "could not connect to PostgreSQL at \(settings.location): \(Self.oneLine(message))")
        }
        handle = connection
        // Server-side timeouts: a statement that runs away, and a session left in a transaction;
        // and the output formats the values are read in.
        try executeScript(
            """
            SET client_encoding = 'UTF8';
            SET bytea_output = 'hex';
            SET extra_float_digits = 3;
            SET statement_timeout = \(settings.statementTimeoutMilliseconds);
            SET idle_in_transaction_session_timeout = \(max(settings.statementTimeoutMilliseconds, 60_000));
            SET client_min_messages = warning
            """)
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable (after a failed statement it may have been lost).
    var isHealthy: Bool {
        !unusable && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
            && PQpipelineStatus(handle) == PQ_PIPELINE_OFF
    }

    /// The socket, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    // MARK: Transactions

    /// Runs `body` between `begin` and `COMMIT`; rolls back when `body` or the commit throws.
    ///
    /// `begin` is sent with the transaction's first statement, in one pipeline (libpq's pipeline
    /// mode): one round trip fewer for every transaction. One without any statement sends neither
    /// `begin` nor `COMMIT`.
    func transaction<T>(begin: String, _ body: (any SQLTransaction) throws -> T) throws -> T {
        pendingBegin = begin
        defer { pendingBegin = nil }
        let transaction = PostgresTransaction(connection: self)
        defer { transaction.isOpen = false }
        do {
            let result = try body(transaction)
            guard pendingBegin == nil else {
                lastTransactionChanged = false
                return result
            }
            // A statement that failed aborts the transaction; its COMMIT would roll back silently.
            guard PQtransactionStatus(handle) != PQTRANS_INERROR else {
                throw StoreError(.misuse, "a statement of the transaction failed (and was caught): the transaction is rolled back")
            }
            try executeScript("COMMIT")
            lastTransactionChanged = transaction.changed
            return result
        } catch {
            if PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) != PQTRANS_IDLE {
                _ = try? executeScript("ROLLBACK")
            }
            throw error
        }
    }

    // MARK: Statements

    /// Runs one statement (prepared once per connection); collects its rows when `collect`, and
    /// counts the rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLValue], collect: Bool) throws -> (rows: [Row], changes: Int) {
        let name: String
        do { name = try prepared(sql) } catch { throw pendingBegin == nil ? error : lost(error) }
        // Values go as text, except blobs (binary); the server knows each parameter's type from
        // where it stands in the statement.
        var texts: [[CChar]?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        texts.reserveCapacity(parameters.count)
        for value in parameters {
            switch value {
            case .null:
                texts.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let number):
                texts.append(Array(String(number).utf8CString))
                lengths.append(0)
                formats.append(0)
            case .real(let number):
                texts.append(Array(Self.text(of: number).utf8CString))
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw StoreError(.invalidArgument, "a text value for \(Self.excerpt(sql)) holds a NUL character, which PostgreSQL cannot store")
                }
                texts.append(Array(text.utf8CString))
                lengths.append(0)
                formats.append(0)
            case .blob(let bytes):
                texts.append(bytes.map { CChar(bitPattern: $0) })
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        let begin = pendingBegin
        pendingBegin = nil
        let result = try Self.withPointers(texts) { pointers in
            guard let begin else { return PQexecPrepared(handle, name, Int32(parameters.count), pointers, lengths, formats, 0) }
            return try pipelined(begin, then: name, Int32(parameters.count), pointers, lengths, formats)
        }
        guard let result else { throw failure(nil, "could not run \(Self.excerpt(sql))") }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK:
            return ([], Self.changes(result))
        case PGRES_TUPLES_OK:
            return (collect ? Self.rows(of: result) : [], Self.changes(result))
        default:
            throw failure(result, "could not run \(Self.excerpt(sql))")
        }
    }

    /// Runs `;`-separated statements without parameters or caching (the simple query protocol).
    func executeScript(_ sql: String) throws {
        if let begin = pendingBegin {
            // A script cannot go in a pipeline: the transaction's `BEGIN` goes alone first.
            pendingBegin = nil
            do { try simpleQuery(begin) } catch { throw lost(error) }
        }
        try simpleQuery(sql)
    }

    private func simpleQuery(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw failure(nil, "could not run \(Self.excerpt(sql))") }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw failure(result, "could not run \(Self.excerpt(sql))")
        }
    }

    /// `begin` and the prepared statement `name` in one pipeline, one round trip (PostgreSQL
    /// documentation, libpq, "Pipeline Mode"); the statement's result, as `PQexecPrepared` gives
    /// it. A connection that broke before `begin` ran throws ``ConnectionLost``: nothing ran.
    private func pipelined(
        _ begin: String, then name: String, _ count: Int32, _ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32]
    ) throws -> OpaquePointer? {
        guard PQenterPipelineMode(handle) == 1 else { throw lost(failure(nil, "could not begin a transaction")) }
        defer { if PQstatus(handle) == CONNECTION_OK, PQexitPipelineMode(handle) != 1 { unusable = true } }
        guard PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 0) == 1,
            PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0) == 1,
            PQpipelineSync(handle) == 1
        else {
            unusable = true
            throw lost(failure(nil, "could not begin a transaction"))
        }
        // Each query's results end with a null; the pipeline with its sync point.
        var results: [OpaquePointer?] = [nil, nil]
        var query = 0
        var synced = false
        while query <= results.count {
            guard let result = PQgetResult(handle) else {
                query += 1
                continue
            }
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                synced = true
                break
            }
            if query < results.count, results[query] == nil { results[query] = result } else { PQclear(result) }
        }
        if !synced { unusable = true }
        guard let begun = results[0] else { throw lost(failure(nil, "could not begin a transaction")) }
        defer { PQclear(begun) }
        guard PQresultStatus(begun) == PGRES_COMMAND_OK else {
            if let statement = results[1] { PQclear(statement) }
            throw lost(failure(begun, "could not begin a transaction"))
        }
        return results[1]
    }

    /// `error` as ``ConnectionLost`` when the connection broke (nothing of the transaction ran,
    /// the caller may try a new one), else as it is.
    private func lost(_ error: any Error) -> any Error {
        PQstatus(handle) != CONNECTION_OK ? ConnectionLost(error: error) : error
    }

    /// The prepared statement name for `sql`, preparing it on first use.
    private func prepared(_ sql: String) throws -> String {
        if let name = statements[sql] { return name }
        if statements.count >= Self.statementCacheLimit {
            try simpleQuery("DEALLOCATE ALL")
            statements.removeAll()
        }
        nextStatement += 1
        let name = "l\(nextStatement)"
        guard let result = PQprepare(handle, name, sql, 0, nil) else { throw failure(nil, "could not prepare \(Self.excerpt(sql))") }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result, "could not prepare \(Self.excerpt(sql))") }
        statements[sql] = name
        return name
    }

    /// Calls `body` with C string pointers to `values` (nil stays a NULL pointer: SQL NULL).
    private static func withPointers<R>(_ values: [[CChar]?], _ body: ([UnsafePointer<CChar>?]) throws -> R) throws -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(values.count)
        func next(_ index: Int) throws -> R {
            guard index < values.count else { return try body(pointers) }
            guard let value = values[index] else {
                pointers.append(nil)
                return try next(index + 1)
            }
            return try value.withUnsafeBufferPointer { buffer in
                pointers.append(buffer.baseAddress)
                return try next(index + 1)
            }
        }
        return try next(0)
    }

    /// A double as PostgreSQL reads it back exactly (Swift's shortest round-trip form).
    private static func text(of number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
        return "\(number)"
    }

    /// Rows inserted, updated or deleted (`INSERT 0 3`, `UPDATE 3`, …); a `SELECT` changes none.
    private static func changes(_ result: OpaquePointer) -> Int {
        if String(cString: PQcmdStatus(result)).hasPrefix("SELECT") { return 0 }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    // MARK: Results

    /// Type OIDs of `pg_type` the values are read by (PostgreSQL's `pg_type.dat`).
    private enum TypeOID {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let oid: UInt32 = 26
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
        static let numeric: UInt32 = 1700
    }

    private static func rows(of result: OpaquePointer) -> [Row] {
        let count = Int(PQntuples(result))
        let fields = Int(PQnfields(result))
        var names: [String: Int] = [:]
        var types: [UInt32] = []
        for field in 0..<fields {
            let name = String(cString: PQfname(result, Int32(field)))
            if names[name] == nil { names[name] = field }
            types.append(PQftype(result, Int32(field)))
        }
        var rows: [Row] = []
        rows.reserveCapacity(count)
        for row in 0..<count {
            var values: [SQLValue] = []
            values.reserveCapacity(fields)
            for field in 0..<fields {
                if PQgetisnull(result, Int32(row), Int32(field)) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, Int32(row), Int32(field)))
                let pointer = PQgetvalue(result, Int32(row), Int32(field))!
                let text = pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
                values.append(value(text, type: types[field]))
            }
            rows.append(Row(columns: names, values: values))
        }
        return rows
    }

    /// A text-format value of type `type` as a ``SQLValue``.
    private static func value(_ text: String, type: UInt32) -> SQLValue {
        switch type {
        case TypeOID.int8, TypeOID.int4, TypeOID.int2, TypeOID.oid:
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        case TypeOID.float4, TypeOID.float8:
            return Double(text).map(SQLValue.real) ?? .text(text)
        case TypeOID.numeric:
            // SUM and AVG of integers are numeric: whole ones read as integers.
            if let whole = Int64(text) { return .integer(whole) }
            return Double(text).map(SQLValue.real) ?? .text(text)
        case TypeOID.bool:
            return .integer(text == "t" ? 1 : 0)
        case TypeOID.bytea:
            return .blob(hexBytes(text))
        default:
            return .text(text)
        }
    }

    /// The bytes of bytea's hex output (`\x0a1b…`).
    private static func hexBytes(_ text: String) -> [UInt8] {
        var digits = Array(text.utf8)
        if digits.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) { digits.removeFirst(2) }
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: 0
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index + 1 < digits.count {
            bytes.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return bytes
    }

    // MARK: Notifications

    /// `LISTEN channel` (the name is Liveline's own constant, never input).
    func listen(_ channel: String) throws { try executeScript("LISTEN \(channel)") }

    /// Reads what arrived on the socket and returns how many notifications were pending that
    /// did not come from the backend process `ownBackend`. Throws when the connection was lost.
    func drainNotifications(notFrom ownBackend: Int32) throws -> Int {
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            throw failure(nil, "the notification connection was lost")
        }
        var count = 0
        while let notification = PQnotifies(handle) {
            if notification.pointee.be_pid != ownBackend { count += 1 }
            PQfreemem(notification)
        }
        return count
    }

    /// The server process serving this connection.
    var backendProcess: Int32 { PQbackendPID(handle) }

    // MARK: Errors

    /// The store error of a failed call: SQLSTATE mapped onto a ``StoreError/Code`` with
    /// PostgreSQL's message (redacted), never a bound value.
    private func failure(_ result: OpaquePointer?, _ context: String) -> StoreError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let primary = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
        let message = redaction.redact(Self.oneLine(primary ?? String(cString: PQerrorMessage(handle))))
        let code: StoreError.Code
        if PQstatus(handle) != CONNECTION_OK {
            code = .unavailable  // the connection broke under the statement
        } else {
            code = Self.code(sqlState: state)
        }
        return StoreError(code, "\(context): \(message)\(state.map { " (SQLSTATE \($0))" } ?? "")")
    }

    /// PostgreSQL's error classes ("PostgreSQL Error Codes" appendix) as store codes.
    static func code(sqlState: String?) -> StoreError.Code {
        guard let state = sqlState else { return .database }
        switch state {
        case "40001", "40P01", "55P03", "57014": return .busy  // serialization, deadlock, lock not available, timeout
        case "53100": return .storageFull  // disk_full: the server's disk, `docs/reliability.md`, "Disk full"
        case "42P01", "42703", "42601", "42883", "42804", "08P01": return .misuse
        default: break
        }
        switch state.prefix(2) {
        case "23": return .constraint
        case "08", "53", "58", "57", "28", "3D": return .io
        case "XX": return .corrupt
        case "42", "22": return .misuse
        default: return .database
        }
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// `sql` on one line and at most 200 characters, for messages.
    static func excerpt(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return "`" + (line.count > 200 ? line.prefix(200) + "…" : line) + "`"
    }
}

/// The connection broke before a transaction began: nothing of it ran.
struct ConnectionLost: Error {
    let error: any Error
}

/// A ``SQLTransaction`` on one ``PostgresConnection``, valid only inside its `read`/`write` body.
final class PostgresTransaction: SQLTransaction {
    private let connection: PostgresConnection
    var isOpen = true
    /// Whether a statement of it changed rows.
    var changed = false

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try ensureOpen()
        let changes = try connection.run(sql, parameters, collect: false).changes
        if changes > 0 { changed = true }
        return changes
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [Row] {
        try ensureOpen()
        let (rows, changes) = try connection.run(sql, parameters, collect: true)
        if changes > 0 { changed = true }
        return rows
    }

    func executeScript(_ sql: String) throws {
        try ensureOpen()
        try connection.executeScript(sql)
        changed = true
    }

    /// `pg_advisory_xact_lock` (or `_shared`) in the name space 72619, keyed by schema and name;
    /// a patient wait runs without the statement timeout, which is set again once it is held.
    func holdLock(_ name: String, shared: Bool, patient: Bool) throws {
        if patient { try executeScript("SET LOCAL statement_timeout = 0") }
        let function = shared ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"
        try execute("SELECT \(function)(72619, hashtext(current_schema() || ':' || $1))", [.text(name)])
        if patient { try executeScript("SET LOCAL statement_timeout = \(connection.statementTimeoutMilliseconds)") }
    }

    private func ensureOpen() throws {
        guard isOpen else { throw StoreError(.misuse, "a transaction was used after its read or write body returned") }
    }
}
