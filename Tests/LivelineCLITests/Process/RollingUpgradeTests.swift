import Foundation
import LivelineCrypto
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// A rolling upgrade on PostgreSQL (docs/operations.md, "Upgrading"): three instances under load,
/// replaced one at a time by a build with one more, expanding migration (a column on `contexts`
/// and a table, which the new build uses), then one at a time back. No answer is a 5xx but a 503
/// with `Retry-After`, every acknowledged change and note is kept, each device is started once,
/// and every phone ends on its context's last state.
@Suite(.serialized) struct RollingUpgradeTests {
    static let adminKey = SeveralInstancesTests.adminKey
    static let contexts = 30
    static let tokensPerContext = 2
    static let starters = 5
    static let probe = ServeProcess.built("liveline-probe")

    /// What the clients saw: their violations, the last change and note each instance acknowledged.
    final class Ledger: Sendable {
        private let state = Mutex<(violations: [String], delays: [String: Int], notes: [String: String], answered: Int, retried: Int)>(
            ([], [:], [:], 0, 0))
        var violations: [String] { state.withLock { $0.violations } }
        var delays: [String: Int] { state.withLock { $0.delays } }
        var notes: [String: String] { state.withLock { $0.notes } }
        var answered: Int { state.withLock { $0.answered } }
        var retried: Int { state.withLock { $0.retried } }
        func violation(_ text: String) { state.withLock { $0.violations.append(text) } }
        func delay(_ key: String, _ delay: Int) { state.withLock { $0.delays[key] = delay } }
        func note(_ key: String, _ note: String) { state.withLock { $0.notes[key] = note } }
        func answer() { state.withLock { $0.answered += 1 } }
        func retry() { state.withLock { $0.retried += 1 } }
    }

    final class Run: OnSharedGround, @unchecked Sendable {
        let ground: SharedGround
        /// Guarded by `lock`: replaced while the clients send.
        private var servers: [ServeProcess] = []
        private var ports: [Int] = []
        private let lock = NSLock()
        let ledger = Ledger()
        /// Set when the clients are to stop.
        let stopping = Atomic<Bool>(false)
        var tokens: [String: [String]] = [:]
        var startTokens: [String] = []

        init() throws {
            ground = try SharedGround(name: "liveline-upgrade", adminKey: RollingUpgradeTests.adminKey)
            for index in 0..<3 {
                let server = try start(index, version: 1)
                servers.append(server)
                ports.append(server.port)
            }
        }

        /// Instance `index` of the probe build `version` on a free port, logging to a file of its own.
        func start(_ index: Int, version: Int) throws -> ServeProcess {
            let log = folder.appendingPathComponent("serve-\(index)-v\(version)-\(UUID().uuidString.prefix(6)).log")
            return try ServeProcess(
                data: folder.appendingPathComponent("data-\(index)"),
                environment: environment.merging(["PROBE_SCHEMA_VERSION": String(version), "LIVELINE_LOG_LEVEL": "info"]) { $1 },
                standardOutput: .file(log.path), executable: RollingUpgradeTests.probe)
        }

        /// Replaces instance `index` with the probe build `version`: SIGTERM (it finishes what it
        /// serves), then the new build, which the clients' balancing learns (a port of its own:
        /// the old one may be taken meanwhile by a client connection's local port).
        func replace(_ index: Int, version: Int) throws {
            let old = lock.withLock { servers[index] }
            old.kill(SIGTERM)
            #expect(old.process.termination == .exited(0), "instance \(index) stopped cleanly")
            let new = try start(index, version: version)
            lock.withLock {
                servers[index] = new
                ports[index] = new.port
            }
        }

        /// Nothing left to send: no outbox row due or leased, now or later.
        func drained() throws -> Bool {
            let store = try Store.open(PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1))
            defer { store.database.close() }
            let depth = try store.outbox.depth(now: Date().addingTimeInterval(24 * 3600))
            return depth.due == 0 && depth.leased == 0
        }

        func logs() -> String {
            let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
            return files.filter { $0.pathExtension == "log" }.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined()
        }

        deinit {
            lock.withLock { servers.removeAll() }
            ground.tearDown()
        }

        /// One request to instance `index`, else to the next that answers (one being replaced
        /// refuses connections); a 503 with `Retry-After` is waited out and sent again. Nil when
        /// none answered, a violation.
        func request(_ method: String, _ path: String, json: String? = nil, admin: Bool, instance index: Int) -> TestHTTPConnection.Response? {
            let ports = lock.withLock { self.ports }
            let authorization = "Bearer \(admin ? RollingUpgradeTests.adminKey : bearer)"
            for attempt in 0..<(ports.count * 20) {
                let port = ports[(index + attempt) % ports.count]
                guard
                    let response = try? TestHTTPConnection(port: port).request(
                        method, path, headers: ["Authorization": authorization], body: json.map { Array($0.utf8) })
                else {
                    if attempt % ports.count == ports.count - 1 { Thread.sleep(forTimeInterval: 0.05) }
                    continue
                }
                if response.status == 503, response.headers["retry-after"] != nil {
                    ledger.retry()
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
                if response.status >= 500 { ledger.violation("\(method) \(path) → \(response.status): \(response.text.prefix(200))") }
                ledger.answer()
                return response
            }
            ledger.violation("\(method) \(path): no instance answered")
            return nil
        }

        func registerTokens() {
            for context in 0..<RollingUpgradeTests.contexts {
                for phone in 0..<RollingUpgradeTests.tokensPerContext {
                    let token = String(format: "%064x", 0x09_0000 + context * 16 + phone)
                    sandbox.registerDevice(token: token)
                    let key = "trip:up-\(context)"
                    let response = request(
                        "POST", "/api/apns/register",
                        json:
                            #"{"kind":"la-update","token":"\#(token)","device_id":"p-\#(context)-\#(phone)","context_key":"\#(key)","attributes_type":"TripLiveActivityAttributes"}"#,
                        admin: false, instance: context + phone)
                    #expect(response?.status == 200, "\(response?.text ?? "")")
                    tokens[key, default: []].append(token)
                }
            }
            for index in 0..<RollingUpgradeTests.starters {
                let token = String(format: "%064x", 0x5a_0000 + index)
                sandbox.registerDevice(token: token)
                let response = request(
                    "POST", "/api/apns/register",
                    json: #"{"kind":"la-pushToStart","token":"\#(token)","device_id":"s-\#(index)","attributes_type":"TripLiveActivityAttributes"}"#,
                    admin: false, instance: index)
                #expect(response?.status == 200, "\(response?.text ?? "")")
                startTokens.append(token)
            }
        }

        /// Three clients until ``stopping``: each owns some contexts and PUTs their next delay, every
        /// fifth step a note (with an author, which only the new build keeps), every tenth the
        /// same start asked again; each request to a random instance.
        func load() {
            let starters = (0..<RollingUpgradeTests.starters).map { "\"s-\($0)\"" }.joined(separator: ",")
            let group = DispatchGroup()
            for client in 0..<3 {
                group.enter()
                // Threads of their own: `concurrentPerform` runs only as many at once as there are cores.
                Thread.detachNewThread { [self] in
                    defer { group.leave() }
                    let owned = (0..<RollingUpgradeTests.contexts).filter { $0 % 3 == client }
                    var step = 0
                    while !stopping.load(ordering: .relaxed) {
                        step += 1
                        let key = "trip:up-\(owned[step % owned.count])"
                        let instance = Int.random(in: 0..<3)
                        if let response = request(
                            "PUT", "/v1/contexts/\(key)", json: CrashRecoveryTests.trip(delay: step), admin: true, instance: instance),
                            response.status == 200 || response.status == 201
                        {
                            ledger.delay(key, step)
                        }
                        if step % 5 == 0 {
                            let note = "note \(client)-\(step)"
                            let response = request(
                                "POST", "/api/probe/notes", json: #"{"context_key":"\#(key)","note":"\#(note)","author":"client-\#(client)"}"#,
                                admin: true, instance: instance)
                            if response?.status == 200 { ledger.note(key, note) }
                        }
                        if client == 0, step % 10 == 0 {
                            _ = request(
                                "POST", "/v1/contexts/trip:up-start/start", json: #"{"deviceIds":[\#(starters)],"alert":{"title":"Trip"}}"#,
                                admin: true, instance: instance)
                        }
                    }
                }
            }
            group.wait()
        }

        func lastDelay(_ token: String) -> Int? {
            sandbox.accepted(token: token).compactMap { push -> Int? in
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
                return ((json?["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["delay"] as? Int
            }.last
        }

        /// The versions of `feature` the database records.
        func featureVersions(_ feature: String) throws -> [Int] {
            let database = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
            defer { database.close() }
            return try database.read { try Migrator.appliedVersions(feature: feature, $0).sorted() }
        }

        /// How many contexts the new build marked with an author.
        func authored() throws -> Int {
            let database = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
            defer { database.close() }
            return try database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM contexts WHERE probe_author IS NOT NULL")?.int("n") ?? 0 }
        }
    }

    @Test func threeInstancesUpgradedOneByOneUnderLoadAndBackLoseNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.probe.path), "build liveline-probe first: \(Self.probe.path)")
        let run = try Run()
        run.registerTokens()
        #expect(run.request("PUT", "/v1/contexts/trip:up-start", json: CrashRecoveryTests.trip(delay: 1), admin: true, instance: 0)?.status == 201)
        let loadDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            run.load()
            loadDone.signal()
        }
        // However the test ends, the clients stop before the servers go.
        var loadStopped = false
        defer {
            if !loadStopped {
                run.stopping.store(true, ordering: .relaxed)
                loadDone.wait()
            }
        }
        /// Lets the load go on for a while on the instances as they are.
        func underLoad() async throws {
            let before = run.ledger.answered
            #expect(await eventually(timeout: 60) { run.ledger.answered >= before + 300 }, "the load goes on")
        }
        try await underLoad()
        for index in 0..<3 {
            try run.replace(index, version: 2)
            try await underLoad()
        }
        #expect(try run.featureVersions("probe") == [1, 2], "the new build's migration ran once")
        let authored = try run.authored()
        #expect(authored > 0, "the new build wrote its column")
        for index in 0..<3 {
            try run.replace(index, version: 1)
            try await underLoad()
        }
        run.stopping.store(true, ordering: .relaxed)
        loadDone.wait()
        loadStopped = true
        let logs = run.logs()
        #expect(logs.contains("\"schemaAhead\""), "the old build said it serves on a newer schema")
        #expect(!logs.contains("\"schemaContracted\""), "no contract step ran: the ground's own ran before the instances")

        #expect(run.ledger.violations.isEmpty, "\(run.ledger.violations.prefix(10))")
        let delays = run.ledger.delays
        #expect(delays.count == Self.contexts)
        // Nothing lost: each context holds its last acknowledged change, each note its last.
        for (key, delay) in delays {
            let response = run.request("GET", "/v1/contexts/\(key)", admin: true, instance: 0)
            let state = (response?.json?["contentState"] as? [String: Any])?["delay"] as? Int
            #expect(state == delay, "\(key): \(state.map(String.init) ?? "none") ≠ \(delay)")
        }
        for (key, note) in run.ledger.notes {
            let response = run.request("GET", "/api/probe/notes/\(key)", admin: true, instance: 1)
            #expect(response?.json?["note"] as? String == note, "\(key): \(response?.text ?? "")")
        }
        // Phones current: every token's last push carries its context's last change.
        let all = run.tokens.flatMap { key, tokens in tokens.map { (key, $0) } }
        #expect(await eventually(timeout: 60) { all.allSatisfy { run.lastDelay($0.1) == delays[$0.0] } }, "every phone is current")
        // No duplicate start, however often it was asked and whichever build took it.
        #expect(await eventually { run.startTokens.allSatisfy { run.sandbox.accepted(token: $0).count >= 1 } })
        // Drained, then looked: a start that may have gone out unanswered waits a lease (5 s), then goes again.
        #expect(try await eventually(timeout: 60) { try run.drained() }, "nothing left to send")
        #expect(run.startTokens.map { run.sandbox.accepted(token: $0).count } == Array(repeating: 1, count: Self.starters))
        print(
            "rolling upgrade: \(run.ledger.answered) requests answered across 6 replacements, \(run.ledger.retried) 503s with Retry-After retried, "
                + "\(run.ledger.violations.count) violations, \(authored) contexts authored by the new build")
    }
}
