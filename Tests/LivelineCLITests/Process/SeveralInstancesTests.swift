import Foundation
import LivelineCrypto
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Synchronization
import Testing

/// Three `liveline serve` processes on one PostgreSQL and one APNs sandbox (docs/operations.md, "Several
/// instances"): changes sent to random instances by concurrent clients all reach every device
/// with the final state, nothing is sent twice without a crash, a killed instance's rows go out
/// from the others, and a push-to-start asked of all three at once starts each device once.
@Suite(.serialized) struct SeveralInstancesTests {
    static let adminKey = "several-instances-admin-key-0123"
    static let contexts = 200
    static let tokensPerContext = 5
    static let changes = 5_000

    /// A run: the sandbox, the database, three servers and the tokens of every context.
    final class Run: OnSharedGround {
        let ground: SharedGround
        var servers: [ServeProcess] = []
        var tokens: [String: [String]] = [:]

        init() throws {
            ground = try SharedGround(name: "liveline-instances", adminKey: SeveralInstancesTests.adminKey)
            for index in 0..<3 { servers.append(try start(index)) }
        }

        func start(_ index: Int) throws -> ServeProcess {
            try ServeProcess(data: folder.appendingPathComponent("data-\(index)"), environment: environment)
        }

        deinit {
            servers.removeAll()
            ground.tearDown()
        }

        /// One request to instance `index`, or — when it does not answer (killed) — the next one.
        func request(_ method: String, _ path: String, json: String, admin: Bool, instance index: Int) throws -> TestHTTPConnection.Response {
            var lastError: (any Error)?
            for offset in 0..<servers.count {
                let server = servers[(index + offset) % servers.count]
                do {
                    return try TestHTTPConnection(port: server.port).request(
                        method, path, headers: ["Authorization": "Bearer \(admin ? SeveralInstancesTests.adminKey : bearer)"], json: json)
                } catch {
                    lastError = error
                }
            }
            throw lastError!
        }

        func registerTokens() throws {
            for context in 0..<SeveralInstancesTests.contexts {
                for phone in 0..<SeveralInstancesTests.tokensPerContext {
                    let token = String(format: "%064x", 0xbeef_0000 + context * 16 + phone)
                    sandbox.registerDevice(token: token)
                    let key = "trip:many-\(context)"
                    let response = try request(
                        "POST", "/api/apns/register",
                        json:
                            #"{"kind":"la-update","token":"\#(token)","device_id":"p-\#(context)-\#(phone)","context_key":"\#(key)","attributes_type":"TripLiveActivityAttributes"}"#,
                        admin: false, instance: context + phone)
                    #expect(response.status == 200, "\(response.text)")
                    tokens[key, default: []].append(token)
                }
            }
        }

        /// Sends `changes` PUTs from 6 concurrent clients, each owning some contexts (so each
        /// context's changes are in order), each request to a random instance; `halfway` runs
        /// once half of them were sent. Returns the last delay put per context.
        func sendChanges(halfway: @escaping @Sendable () -> Void = {}) -> [String: Int] {
            let last = Mutex<[String: Int]>([:])
            let sent = Atomic<Int>(0)
            let failed = Atomic<Int>(0)
            let clients = 6
            let perClient = SeveralInstancesTests.changes / clients
            nonisolated(unsafe) let run = self
            DispatchQueue.concurrentPerform(iterations: clients) { client in
                var random = SystemRandomNumberGenerator()
                let owned = (0..<SeveralInstancesTests.contexts).filter { $0 % clients == client }
                for step in 0..<perClient {
                    let context = owned[step % owned.count]
                    let key = "trip:many-\(context)"
                    let delay = step + 1
                    do {
                        let response = try run.request(
                            "PUT", "/v1/contexts/\(key)", json: CrashRecoveryTests.trip(delay: delay), admin: true,
                            instance: Int.random(in: 0..<3, using: &random))
                        if response.status == 200 || response.status == 201 {
                            last.withLock { $0[key] = delay }
                        } else {
                            failed.add(1, ordering: .relaxed)
                        }
                    } catch {
                        failed.add(1, ordering: .relaxed)
                    }
                    if sent.add(1, ordering: .relaxed).newValue == SeveralInstancesTests.changes / 2 { halfway() }
                }
            }
            #expect(failed.load(ordering: .relaxed) == 0, "every change was taken by an instance")
            return last.withLock { $0 }
        }

        func lastDelay(_ token: String) -> Int? {
            sandbox.accepted(token: token).compactMap { push -> Int? in
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
                return ((json?["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["delay"] as? Int
            }.last
        }

        /// ``duplicates()`` once the instances recorded what they sent: the same twice, 1 s apart
        /// (the last batch's answers may still be on their way into the database).
        func settledDuplicates() async throws -> Int {
            var last = try duplicates()
            for _ in 0..<30 {
                try await Task.sleep(for: .seconds(1))
                let now = try duplicates()
                if now == last { return now }
                last = now
            }
            return last
        }

        /// Pushes APNs accepted that no delivery record has: sent by an instance that died before
        /// recording the answer (its row was then sent again). Zero without a crash.
        func duplicates() throws -> Int {
            let database = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
            let recorded = try database.read {
                try $0.queryOne("SELECT COUNT(*) AS n FROM deliveries WHERE status = 200 AND target_kind = 'token'")?.int("n") ?? 0
            }
            let accepted = tokens.values.flatMap { $0 }.map { sandbox.accepted(token: $0).count }.reduce(0, +)
            return accepted - recorded
        }
    }

    @Test func changesSentToRandomInstancesAllArriveAndNothingIsSentTwice() async throws {
        let run = try Run()
        try run.registerTokens()
        let final = run.sendChanges()
        #expect(final.count == Self.contexts)
        let allTokens = run.tokens.flatMap { key, tokens in tokens.map { (key, $0) } }
        let arrived = await eventually(timeout: 60) { allTokens.allSatisfy { run.lastDelay($0.1) == final[$0.0] } }
        #expect(arrived, "every token's last push carries its context's final state")
        let duplicates = try await run.settledDuplicates()
        print("several instances, no kill: \(Self.changes) changes, \(allTokens.count) tokens, \(duplicates) duplicate pushes")
        #expect(duplicates == 0, "no push sent twice without a crash")

        // Twenty start requests for one context, spread over the three instances at once.
        let starters = (0..<5).map { String(format: "%064x", 0x5747_0000 + $0) }
        for (index, token) in starters.enumerated() {
            run.sandbox.registerDevice(token: token)
            let response = try run.request(
                "POST", "/api/apns/register",
                json:
                    #"{"kind":"la-pushToStart","token":"\#(token)","device_id":"starter-\#(index)","attributes_type":"TripLiveActivityAttributes"}"#,
                admin: false, instance: index)
            #expect(response.status == 200, "\(response.text)")
        }
        #expect(
            try run.request("PUT", "/v1/contexts/trip:start-all", json: CrashRecoveryTests.trip(delay: 1), admin: true, instance: 0).status == 201)
        let devices = (0..<5).map { "\"starter-\($0)\"" }.joined(separator: ",")
        nonisolated(unsafe) let shared = run
        DispatchQueue.concurrentPerform(iterations: 20) { attempt in
            _ = try? shared.request(
                "POST", "/v1/contexts/trip:start-all/start", json: #"{"deviceIds":[\#(devices)],"alert":{"title":"Trip"}}"#, admin: true,
                instance: attempt % 3)
        }
        let started = await eventually(timeout: 30) { starters.allSatisfy { run.sandbox.accepted(token: $0).count >= 1 } }
        #expect(started)
        try await Task.sleep(for: .seconds(1))  // a second start, if any, would be sent by now
        #expect(starters.map { run.sandbox.accepted(token: $0).count } == Array(repeating: 1, count: 5), "each device started exactly once")
    }

    @Test func aKilledInstancesRowsGoOutFromTheOthersAndNoChangeIsLost() async throws {
        let run = try Run()
        try run.registerTokens()
        // APNs answers slowly, so pushes are in flight when the instance dies.
        run.sandbox.setFaults(SandboxFaults(seed: 7, latency: .milliseconds(150)))
        nonisolated(unsafe) let shared = run
        let database = try PostgresDatabase(settings: PostgresSettings(url: run.url), poolSize: 1)
        defer { database.close() }
        let leasedAtKill = Mutex<[(id: Int, owner: String, until: Int64)]>([])
        let ownersBeforeKill = Mutex<Int>(0)
        let killedAt = Mutex<ContinuousClock.Instant?>(nil)
        let final = run.sendChanges(halfway: {
            // Killed while every instance holds leased rows (up to 5 s of looking), so the dead
            // one's rows are among those leased at the kill.
            func leased() throws -> [(id: Int, owner: String, until: Int64)] {
                try database.read { transaction in
                    try transaction.query("SELECT id, lease_owner, lease_until FROM outbox WHERE status = 'leased'").map {
                        (id: try $0.int("id"), owner: try $0.string("lease_owner"), until: try $0.int64("lease_until"))
                    }
                }
            }
            do {
                let deadline = ContinuousClock.now + .seconds(5)
                var owners = 0
                while owners < 3 && ContinuousClock.now < deadline {
                    owners = Set(try leased().map(\.owner)).count
                    if owners < 3 { Thread.sleep(forTimeInterval: 0.005) }
                }
                ownersBeforeKill.withLock { $0 = owners }
                shared.servers[1].kill(SIGKILL)
                killedAt.withLock { $0 = .now }
                let atKill = try leased()
                leasedAtKill.withLock { $0 = atKill }
            } catch {
                Issue.record("reading the leased rows at the kill: \(error)")
            }
        })
        #expect(run.servers[1].process.termination == .signalled(SIGKILL))
        run.sandbox.setFaults(SandboxFaults(seed: 7))
        // Before the killed instance starts again: the rows it held are the others' once their
        // lease (5 s here) ran out — taken back within a second, then sent or superseded.
        let killed = try #require(killedAt.withLock { $0 })
        let waited = ContinuousClock.now - killed
        if waited < .seconds(8) { try await Task.sleep(for: .seconds(8) - waited) }
        let atKill = leasedAtKill.withLock { $0 }
        // The same lease, not the same row leased again (a live instance may lease a row it gave
        // back under its own name once more): that can only be the dead instance's.
        let stillHeld = try database.read { transaction in
            try atKill.filter { row in
                try transaction.queryOne(
                    "SELECT 1 AS held FROM outbox WHERE id = $1 AND status = 'leased' AND lease_owner = $2 AND lease_until = $3",
                    [.integer(Int64(row.id)), .text(row.owner), .integer(row.until)]
                ) != nil
            }
        }
        #expect(ownersBeforeKill.withLock { $0 } == 3, "every instance held leased rows when one was killed")
        #expect(!atKill.isEmpty, "rows were in flight at the kill")
        #expect(stillHeld.isEmpty, "\(stillHeld.count) of \(atKill.count) rows leased at the kill still had their lease 8 s later")
        print("several instances: \(atKill.count) rows leased at the kill, \(stillHeld.count) still held 8 s later (lease 5 s)")
        run.servers[1] = try run.start(1)
        let allTokens = run.tokens.flatMap { key, tokens in tokens.map { (key, $0) } }
        let arrived = await eventually(timeout: 60) { allTokens.allSatisfy { run.lastDelay($0.1) == final[$0.0] } }
        #expect(arrived, "every token's last push carries its context's final state after the kill")
        let duplicates = try await run.settledDuplicates()
        print(
            "several instances, one SIGKILLed mid-run: \(Self.changes) changes, \(allTokens.count) tokens, \(duplicates) duplicate pushes (in flight at the kill)"
        )
        #expect(duplicates >= 0 && duplicates <= allTokens.count, "only what was in flight at the kill, at most once a token: \(duplicates)")
    }
}
