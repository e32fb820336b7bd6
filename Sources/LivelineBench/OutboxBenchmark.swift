import Foundation
import Liveline
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import Synchronization

/// `liveline-bench outbox` and `liveline-bench claim-latency`: the outbox on one PostgreSQL
/// (docs/operations.md, "Several instances"; `docs/engine.md`, "Storage"). Each instance is an ``Engine``
/// with a connection pool, change feed and dispatcher of its own, as `liveline serve` has; they
/// run in this one process (the database sees them as separate instances). Pushes go to a
/// sender that answers 200 at once (``AcceptingSender``), so the figures are the engine's and
/// the database's.
public enum OutboxBenchmark {
    /// Alert tokens the rows go to (each row reads its token, as a real alert does).
    static let tokenCount = 100

    /// Rows/s from due to done with `instances` dispatchers: `rows` alert messages enqueued before
    /// the clock starts, then every instance's dispatcher started at once; the time until none is
    /// due or leased.
    public static func throughput(url: String, rows: Int, instances: Int, output: @Sendable (String) -> Void) throws -> Double {
        let (schema, drop) = try makeSchema(url: url)
        defer { drop() }
        let setup = try open(url: url, schema: schema)
        let tokens = try registerAlertTokens(setup)
        var enqueued = 0
        while enqueued < rows {
            let chunk = min(1000, rows - enqueued)
            try setup.write { transaction in
                for index in enqueued..<(enqueued + chunk) {
                    try enqueueAlert(index, token: tokens[index % tokens.count], in: transaction, of: setup)
                }
            }
            enqueued += chunk
        }
        let sender = AcceptingSender()
        let stores = try (0..<instances).map { _ in try open(url: url, schema: schema) }
        let engines = stores.enumerated().map { index, store in
            // Dated by the database, as `liveline serve` is.
            let database = store.database
            return Engine(
                store: store, sender: sender,
                configuration: EngineConfiguration(
                    bundleID: "dev.liveline.bench", dispatcherID: "bench-\(index)-\(UUID().uuidString.prefix(6))", clock: { database.now() }),
                registry: Assembly.contracts()
            )
        }
        let cpuBefore = CPUTimes.now()
        let started = ContinuousClock.now
        for engine in engines { engine.start() }
        // Watched without asking the database (which the dispatchers share): the pushes as they
        // arrive, then the last batch's recording.
        guard sender.waitForPush(number: rows, timeout: 600) != nil else {
            throw EngineBenchmarkError("only \(sender.count) of \(rows) rows sent after 600 s")
        }
        while try setup.outbox.depth(now: Date()).leased > 0 { usleep(1000) }
        let elapsed = EngineBenchmark.seconds(ContinuousClock.now - started)
        let cpu = CPUTimes.now().since(cpuBefore)
        for (engine, store) in zip(engines, stores) {
            _ = engine.stop()
            store.database.close()
        }
        defer { setup.database.close() }
        let done = try setup.database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM outbox WHERE status = 'done'")?.int("n") } ?? 0
        guard done == rows, sender.count == rows else {
            throw EngineBenchmarkError("\(done) rows done and \(sender.count) pushes sent of \(rows)")
        }
        let rate = Double(rows) / elapsed
        output(
            String(
                format: "%d instance(s): %d alert rows due → done in %.2f s = %.0f rows/s (batch %d, pool %d per instance); "
                    + "CPU of the %d cores: %.0f %% busy, PostgreSQL's processes %.0f %%",
                instances, rows, elapsed, rate, engines[0].configuration.batchSize, 10, cpu.cores, cpu.busyShare * 100,
                cpu.postgresShare * 100))
        return rate
    }

    /// Time from an insert committing on one instance to another instance's dispatcher handing
    /// the row to the sender: `samples` alert rows, one at a time, `spacing` apart. The receiving
    /// instance learns of them through its change feed (LISTEN/NOTIFY) or its 250 ms poll — or,
    /// with a spacing inside its 250 ms window after work, by looking every 5 ms.
    public static func claimLatency(url: String, samples: Int, spacing: TimeInterval, output: @Sendable (String) -> Void) throws {
        let (schema, drop) = try makeSchema(url: url)
        defer { drop() }
        let inserting = try open(url: url, schema: schema)
        let tokens = try registerAlertTokens(inserting)
        let sender = AcceptingSender()
        let receivingStore = try open(url: url, schema: schema)
        let receivingDatabase = receivingStore.database
        let receiving = Engine(
            store: receivingStore, sender: sender,
            configuration: EngineConfiguration(bundleID: "dev.liveline.bench", dispatcherID: "bench-receiver", clock: { receivingDatabase.now() }),
            registry: Assembly.contracts()
        )
        receiving.start()
        defer {
            _ = receiving.stop()
            receivingDatabase.close()
            inserting.database.close()
        }
        // The receiver's feed listens from its first connection on; the first rows warm it up.
        Thread.sleep(forTimeInterval: 1)
        var latencies: [Double] = []
        for index in 0..<(samples + 10) {
            try inserting.write { transaction in
                try enqueueAlert(index, token: tokens[index % tokens.count], in: transaction, of: inserting)
            }
            let committed = ContinuousClock.now
            guard let sent = sender.waitForPush(number: index + 1, timeout: 10) else {
                throw EngineBenchmarkError("row \(index) was not sent within 10 s")
            }
            if index >= 10 { latencies.append(EngineBenchmark.seconds(sent - committed) * 1000) }
            Thread.sleep(forTimeInterval: spacing)
        }
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        output(
            String(
                format: "insert on one instance → sent by another, %d rows %.0f ms apart (%@): p50 %.1f ms, p99 %.1f ms, max %.1f ms "
                    + "(goal p50 ≤ 10 ms, p99 ≤ 50 ms; the 250 ms poll alone: p50 ~125 ms)",
                samples, spacing * 1000, spacing > 0.25 ? "woken by NOTIFY" : "inside the 5 ms look after work", percentile(0.5),
                percentile(0.99), sorted.last ?? 0))
    }

    // MARK: Setup

    static func makeSchema(url: String) throws -> (String, () -> Void) {
        let schema = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let admin = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
        try admin.write { try $0.executeScript("CREATE SCHEMA \(schema)") }
        return (
            schema,
            {
                _ = try? admin.write { try $0.executeScript("DROP SCHEMA \(schema) CASCADE") }
                admin.close()
            }
        )
    }

    static func open(url: String, schema: String) throws -> Store {
        try Store.open(PostgresDatabase(settings: PostgresSettings(url: url, searchPath: schema), poolSize: 10))
    }

    static func registerAlertTokens(_ store: Store) throws -> [PushTokenID] {
        let user = try store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🔔", locale: "de", tokenHash: String(repeating: "b", count: 64), now: Date()
        )
        for index in 0..<tokenCount {
            _ = try store.tokens.register(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "phone-\(index)", kind: .alert, environment: .sandbox,
                    token: String(format: "%064x", 0xa1e7_0000 + index)
                ), now: Date()
            )
        }
        return try store.database.read { transaction in
            try transaction.query("SELECT id FROM push_tokens WHERE kind = 'alert' AND status = 'active' ORDER BY id").map {
                PushTokenID(try $0.int("id"))
            }
        }
    }

    /// An alert message row to `token`, in the headers format the engine stores
    /// (`docs/engine.md`, "The transactional outbox").
    static func enqueueAlert(_ index: Int, token: PushTokenID, in transaction: any SQLTransaction, of store: Store) throws {
        let headers = #"{"kind":"alert","note":"bench \#(index)","priority":10,"pushType":"alert","tokenID":\#(token.rawValue)}"#
        try store.outbox.enqueueMessage(
            idempotencyKey: "bench:\(index)", contextKey: nil, target: nil, headers: headers,
            payload: Array(#"{"aps":{"alert":{"title":"Bench","body":"row \#(index)"}}}"#.utf8), now: store.database.now(), in: transaction
        )
    }
}

/// A push sender that accepts every push at once (status 200), counting them and noting when
/// each arrived.
final class AcceptingSender: PushSender {
    private let arrivals = Mutex<[ContinuousClock.Instant]>([])
    private let arrived = DispatchSemaphore(value: 0)

    var count: Int { arrivals.withLock { $0.count } }

    /// When push number `number` (from 1) arrived, waiting up to `timeout` for it.
    func waitForPush(number: Int, timeout: TimeInterval) -> ContinuousClock.Instant? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let instant = arrivals.withLock({ $0.count >= number ? $0[number - 1] : nil }) { return instant }
            guard Date() < deadline else { return nil }
            _ = arrived.wait(timeout: .now() + 0.05)
        }
    }

    private func accept(_ completion: @escaping @Sendable (APNSResult) -> Void) {
        arrivals.withLock { $0.append(ContinuousClock.now) }
        arrived.signal()
        completion(APNSResult(status: 200, apnsID: UUID().uuidString.lowercased(), outcome: .delivered))
    }

    func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void) { accept(completion) }
    func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void) { accept(completion) }
    func createChannel(bundleID: String, storagePolicy: APNSChannelStoragePolicy, completion: @escaping @Sendable (APNSResult) -> Void) {
        completion(APNSResult(status: 200, outcome: .delivered))
    }
    func deleteChannel(bundleID: String, channelID: String, completion: @escaping @Sendable (APNSResult) -> Void) { accept(completion) }
    func listChannels(bundleID: String, completion: @escaping @Sendable (_ channels: [String]?, _ result: APNSResult) -> Void) {
        completion([], APNSResult(status: 200, outcome: .delivered))
    }
}

/// What the machine's cores did (`/proc/stat`) and how much of it PostgreSQL's processes
/// (`/proc/<pid>/stat` of every process named `postgres`) — to tell whether the database or the
/// machine is the limit. Linux only; zeros elsewhere.
struct CPUTimes {
    var total: Double = 0
    var idle: Double = 0
    var postgres: Double = 0
    var cores = ProcessInfo.processInfo.activeProcessorCount

    static func now() -> CPUTimes {
        var times = CPUTimes()
        if let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = stat.split(separator: "\n").first {
            let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            times.total = fields.reduce(0, +)
            // idle and iowait
            times.idle = fields.count > 4 ? fields[3] + fields[4] : 0
        }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in processes where Int(pid) != nil {
            guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == "postgres",
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "(comm)": state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) { times.postgres += user + system }
        }
        return times
    }

    /// Shares of the machine's CPU time between `earlier` and this reading (both in clock ticks;
    /// processes that ended meanwhile are missed).
    func since(_ earlier: CPUTimes) -> (busyShare: Double, postgresShare: Double, cores: Int) {
        let total = total - earlier.total
        guard total > 0 else { return (0, 0, cores) }
        return (1 - (idle - earlier.idle) / total, (postgres - earlier.postgres) / total, cores)
    }
}
