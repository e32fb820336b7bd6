internal import CSQLite
import Foundation
import Liveline
import LivelineEngine
import LivelineModel
import LivelineStore
import LivelineTestSupport
import Synchronization

/// `liveline-bench upsert` and `liveline-bench seed-contexts`: the write path's ceilings
/// (`docs/performance.md`, "Writes").
///
/// In one run on one fresh SQLite file holding `contexts` contexts: `Engine.putContext` on
/// existing contexts in-process (the check, then its transaction; one thread, then several, whose
/// writes the group commit joins), beside a raw baseline that runs the same statements of such a
/// put through SQLite's C API directly (prepared once, bound, stepped, reset; `BEGIN IMMEDIATE`
/// … `COMMIT`) on the same file, with the writer's pragmas (its checkpoints are SQLite's own).
public enum WriteBenchmark {
    /// The statements `Engine.putContext` runs on SQLite for an existing active `/v1` context, in
    /// order (`ContextRepository.recordGivenState`: the guarded bump with the given state, its
    /// revision row and `OutboxRepository.enqueueSync`), written here in SQLite's own parameter syntax.
    static let putStatements = [
        """
        UPDATE contexts SET rev = rev + 1, updated_at = ?2, attributes = ?3, content_state = ?4, relevance_score = ?5
        WHERE key = ?1 AND activity_type = ?6 AND state = 'active' AND household_id IS NULL
        RETURNING rev, state, next_push_at, activity_type, household_id
        """,
        "INSERT INTO context_revisions (context_key, rev, changed_at, note) VALUES (?1, ?2, ?3, ?4)",
        """
        INSERT INTO outbox (kind, context_key, target, status, attempts, due_at, created_at, updated_at)
        VALUES ('sync', ?1, NULL, 'due', 0, ?2, ?2, ?2)
        ON CONFLICT (context_key, COALESCE(target, '')) WHERE kind = 'sync' AND status = 'due'
        DO UPDATE SET due_at = CASE WHEN excluded.due_at < outbox.due_at THEN excluded.due_at ELSE outbox.due_at END,
            updated_at = excluded.updated_at
        RETURNING id
        """,
    ]

    static let attributes = #"{"destination":"Flughafen","line":"S5","tripId":"t"}"#

    /// A trip's content state with `delay`.
    static func contentState(delay: Int) -> String {
        #"{"currentStop":"Hauptbahnhof","delay":\#(delay),"nextStop":"Messe","nextStopTime":803461320,"occupancy":"low","phase":"inProgress","progress":0.5,"remainingTime":240}"#
    }

    /// Creates `count` `/v1` trip contexts `trip:bench-0` … in the data folder `folder` (its
    /// SQLite file, created when missing), 10,000 per transaction, each at revision 1 with a
    /// state, as if put once and pushed (no outbox rows). For the growth table: a server is then
    /// started on the folder.
    public static func seedContexts(folder: URL, count: Int, output: @Sendable (String) -> Void) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Store.openSQLite(folder: folder)
        let started = ContinuousClock.now
        var done = 0
        while done < count {
            let end = min(count, done + 10_000)
            try store.write { transaction in
                let now = Date()
                for index in done..<end {
                    let key = "trip:bench-\(index)"
                    _ = try store.contexts.create(
                        key: key, activityType: "TripLiveActivityAttributes", householdID: nil, attributes: attributes,
                        contentState: contentState(delay: index % 30), now: now, in: transaction)
                    try transaction.execute("UPDATE contexts SET rev = 1 WHERE key = $1", [.text(key)])
                    try transaction.execute(
                        "INSERT INTO context_revisions (context_key, rev, changed_at, note) VALUES ($1, 1, $2, 'created')",
                        [.text(key), SQLValue(now)])
                }
            }
            done = end
        }
        output(String(format: "%d contexts seeded in %.1f s", count, EngineBenchmark.seconds(ContinuousClock.now - started)))
    }

    /// The figures: raw baseline, `Engine.putContext` in one thread and in `threads` threads, each
    /// for `seconds`, on `contexts` contexts (keys drawn at random).
    public static func upsert(seconds duration: Double, contexts: Int, threads: Int, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try seedContexts(folder: folder, count: contexts, output: output)
        let store = try Store.openSQLite(folder: folder)
        let engine = Engine(
            store: store, sender: RecordingPushSender(), configuration: EngineConfiguration(bundleID: "dev.liveline.demo"),
            registry: Assembly.contracts())
        let attributesValue = try JSONValue(json: Data(attributes.utf8))
        let states = try (0..<30).map { try JSONValue(json: Data(contentState(delay: $0).utf8)) }
        let path = folder.appendingPathComponent(SQLiteDatabase.fileName).path

        var raw: [Double] = []
        var single: [Double] = []
        var multi: [Double] = []
        for _ in 0..<2 {
            raw.append(try rawRate(path: path, contexts: contexts, seconds: duration))
            single.append(
                try rate(seconds: duration, threads: 1) { counter in
                    let put = PutContextRequest(type: "TripLiveActivityAttributes", attributes: attributesValue, contentState: states[counter % 30])
                    _ = try engine.putContext(key: "trip:bench-\(Int.random(in: 0..<contexts))", put)
                })
            if threads > 1 {
                multi.append(
                    try rate(seconds: duration, threads: threads) { counter in
                        let put = PutContextRequest(
                            type: "TripLiveActivityAttributes", attributes: attributesValue, contentState: states[counter % 30])
                        _ = try engine.putContext(key: "trip:bench-\(Int.random(in: 0..<contexts))", put)
                    })
            }
        }
        let rawBest = raw.max()!
        let singleBest = single.max()!
        output("writes on \(contexts) contexts, best of 2 rounds of \(Int(duration)) s each, SQLite WAL synchronous=NORMAL:")
        output(String(format: "  raw SQLite C API, the same %d statements per put:   %8.0f puts/s", putStatements.count + 2, rawBest))
        output(
            String(
                format: "  Engine.putContext, 1 thread (check + write):        %8.0f puts/s  = %.2f× raw (goal ≥ 0.5×)", singleBest,
                singleBest / rawBest))
        if let multiBest = multi.max() {
            output(
                String(
                    format: "  Engine.putContext, %d threads (group commit):       %8.0f puts/s  = %.2f× raw", threads, multiBest, multiBest / rawBest
                ))
        }
        output("in-process ceiling for PUT /v1/contexts: \(Int(max(singleBest, multi.max() ?? 0))) puts/s")
    }

    /// Calls of `body` per second over `seconds`, in `threads` threads at once (threads of their
    /// own: `concurrentPerform` would run no more at once than there are cores).
    static func rate(seconds duration: Double, threads: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws -> Double {
        let total = Mutex(0)
        let failure = Mutex<(any Error)?>(nil)
        let finished = DispatchGroup()
        let started = ContinuousClock.now
        for thread in 0..<threads {
            finished.enter()
            Thread {
                defer { finished.leave() }
                var done = 0
                while EngineBenchmark.seconds(ContinuousClock.now - started) < duration {
                    do {
                        try body(done * threads + thread)
                    } catch {
                        failure.withLock { $0 = $0 ?? error }
                        return
                    }
                    done += 1
                }
                total.withLock { $0 += done }
            }.start()
        }
        finished.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return Double(total.withLock { $0 }) / EngineBenchmark.seconds(ContinuousClock.now - started)
    }

    /// The raw baseline: the statements of a put on an existing context, straight through the C
    /// API, one transaction each, for `seconds`.
    static func rawRate(path: String, contexts: Int, seconds duration: Double) throws -> Double {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db = handle else {
            throw EngineBenchmarkError("raw baseline: could not open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw EngineBenchmarkError("raw baseline: \(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        // The writer's pragmas, on SQLite's own checkpointing.
        try exec("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; \(SQLiteDatabase.writerTuningPragmas)")
        var statements: [OpaquePointer] = []
        defer { statements.forEach { sqlite3_finalize($0) } }
        for sql in ["BEGIN IMMEDIATE"] + putStatements + ["COMMIT"] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
                throw EngineBenchmarkError("raw baseline: could not prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
            statements.append(statement)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func text(_ statement: OpaquePointer, _ index: Int32, _ value: String) {
            sqlite3_bind_text(statement, index, value, -1, transient)
        }
        func step(_ statement: OpaquePointer) throws -> Int64 {
            var first: Int64 = 0
            var code = sqlite3_step(statement)
            if code == SQLITE_ROW { first = sqlite3_column_int64(statement, 0) }
            while code == SQLITE_ROW { code = sqlite3_step(statement) }
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            guard code == SQLITE_DONE else { throw EngineBenchmarkError("raw baseline: \(String(cString: sqlite3_errmsg(db)))") }
            return first
        }
        let (begin, bump, revision, enqueue, commit) = (statements[0], statements[1], statements[2], statements[3], statements[4])
        let states = (0..<30).map(contentState(delay:))
        let started = ContinuousClock.now
        var done = 0
        while EngineBenchmark.seconds(ContinuousClock.now - started) < duration {
            let key = "trip:bench-\(Int.random(in: 0..<contexts))"
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try step(begin)
            text(bump, 1, key)
            sqlite3_bind_int64(bump, 2, now)
            text(bump, 3, attributes)
            text(bump, 4, states[done % 30])
            sqlite3_bind_null(bump, 5)
            text(bump, 6, "TripLiveActivityAttributes")
            let rev = try step(bump)
            text(revision, 1, key)
            sqlite3_bind_int64(revision, 2, rev)
            sqlite3_bind_int64(revision, 3, now)
            text(revision, 4, "updated")
            _ = try step(revision)
            text(enqueue, 1, key)
            sqlite3_bind_int64(enqueue, 2, now)
            _ = try step(enqueue)
            _ = try step(commit)
            done += 1
        }
        return Double(done) / EngineBenchmark.seconds(ContinuousClock.now - started)
    }
}
