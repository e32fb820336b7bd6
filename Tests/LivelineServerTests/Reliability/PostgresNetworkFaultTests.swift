import Foundation
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Synchronization
import Testing

/// Network faults between the instances and PostgreSQL (`docs/reliability.md`, "Network
/// faults"): PostgreSQL runs inside a network namespace of the test's own; two server instances
/// (in the test process's namespace) share it over a veth pair whose packets the test's
/// `PacketDelayer` (netfilter's queue; this kernel has no `tc netem`) first makes lossy and slow
/// (20 % loss and 300 ms delay on the way in), then cuts for 30 s, then heals. Changes go to both
/// instances all along. During the partition a write is answered 503 within a bounded time (never
/// a 500, never a hang); every change answered 2xx is stored; the instances reconnect after the
/// heal; every phone ends with the stored state; no device is started twice; the outbox drains.
@Suite(.serialized) struct PostgresNetworkFaultTests {
    static let contexts = 6
    static let partition: Duration = .seconds(30)

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// What one client saw of one change.
    struct Answer {
        var key: String
        var delay: Int
        var status: Int
        var code: String?
        var seconds: Double
    }

    @Test(
        .enabled(if: TestBackend.isPostgres, "the PostgreSQL pass runs it (LIVELINE_TEST_BACKEND=postgres)"),
        .enabled(
            if: NetworkNamespace.unavailableReason == nil,
            Comment(rawValue: "skipped: \(NetworkNamespace.unavailableReason ?? "")")),
        .timeLimit(.minutes(3)))
    func twoInstancesRideOutLossDelayAndAPartitionFromTheirDatabase() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let (url, log, stopCluster) = try TestPostgres.startCluster(in: namespace)
        defer { stopCluster() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-pg-netfaults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let configure: (inout ServerConfiguration) -> Void = { configuration in
            configuration.databaseURL = url
            configuration.databasePool = 4
            configuration.pushRetry = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(3), maximumAttempts: 1000)
        }
        // Live: the clients' requests wait on the wire with a timeout of their own while the
        // database is cut off.
        let a = try ContextAPITests.Setup(.live, folder: folder.appendingPathComponent("a"), external: sandbox, configure: configure)
        defer { a.stop() }
        let b = try ContextAPITests.Setup(.live, folder: folder.appendingPathComponent("b"), external: sandbox, configure: configure)
        defer { b.stop() }
        let instances = [a, b]

        // Phones: two per context (registered through either instance), four with start tokens.
        var tokens: [String: [String]] = [:]
        for context in 0..<Self.contexts {
            for phone in 0..<2 {
                let key = "trip:pg-netfault-\(context)"
                tokens[key, default: []].append(try instances[phone].device(context * 2 + phone, contextKey: key, type: "TripLiveActivityAttributes"))
            }
        }
        let starters = try (0..<4).map { try a.startDevice(100 + $0, type: "TripLiveActivityAttributes") }
        let startKey = "trip:pg-netfault-start"
        let devices = (0..<4).map { "\"phone-\(100 + $0)\"" }.joined(separator: ",")
        let startBody = #"{"deviceIds":[\#(devices)],"alert":{"title":"Trip"}}"#

        // Three clients, each owning two contexts (so each context's changes are in order), each
        // change to either instance in turn, until `until`.
        let answers = Mutex<[Answer]>([])
        let counter = Atomic<Int>(0)
        nonisolated(unsafe) let shared = instances
        @Sendable func send(until: ContinuousClock.Instant) {
            DispatchQueue.concurrentPerform(iterations: 3) { client in
                var step = 0
                while ContinuousClock.now < until {
                    step += 1
                    let key = "trip:pg-netfault-\(client * 2 + step % 2)"
                    let delay = counter.add(1, ordering: .relaxed).newValue
                    let began = ContinuousClock.now
                    let response = try? Self.call(shared[step % 2], "PUT", "/v1/contexts/\(key)", json: ContextAPITests.trip(delay: delay))
                    let answer = Answer(
                        key: key, delay: delay, status: response?.status ?? 0, code: response?.errorCode,
                        seconds: Self.seconds(ContinuousClock.now - began))
                    answers.withLock { $0.append(answer) }
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
        }
        func lastDelay(_ token: String) -> Int? { a.contentStates(token).last?["delay"] as? Int }
        func stored() throws -> [String: Int] {
            var result: [String: Int] = [:]
            for key in tokens.keys {
                let pulled = try Self.call(b, "GET", "/v1/contexts/\(key)")
                if let delay = (pulled.json?["contentState"] as? [String: Any])?["delay"] as? Int { result[key] = delay }
            }
            return result
        }

        // Clean path: the first states, and the start.
        for key in tokens.keys.sorted() {
            #expect(try Self.call(a, "PUT", "/v1/contexts/\(key)", json: ContextAPITests.trip(delay: 0)).status == 201)
        }
        #expect(try Self.call(a, "PUT", "/v1/contexts/\(startKey)", json: ContextAPITests.trip(delay: 0)).status == 201)
        #expect(await eventually(timeout: 30) { tokens.values.joined().allSatisfy { lastDelay($0) == 0 } })

        // Lossy and slow: 20 % loss and 300 ms delay on the way to PostgreSQL; the start is asked of instance B.
        try namespace.impair(lossPercent: 20, delayMilliseconds: 300)
        let asked = try Self.call(b, "POST", "/v1/contexts/\(startKey)/start", json: startBody)
        #expect(asked.status == 200, "\(asked.text)")
        // The phones answer their start as the app does: once the start push arrived, they register
        // the card's update token, again until an instance takes it (docs/engine.md, "Lifecycle").
        let phones = StartAnswers()
        let bearer = a.bearer
        let sandboxShared = sandbox
        let answering = Task.detached {
            while !phones.stop.load(ordering: .relaxed) {
                for (index, starter) in starters.enumerated() where !phones.answered.withLock({ $0.contains(index) }) {
                    guard sandboxShared.accepted(token: starter).contains(where: { $0.payloadText.contains("\"start\"") }) else { continue }
                    let token = String(format: "%064x", 0xa115_0000 + index)
                    sandboxShared.registerDevice(token: token)
                    let body =
                        #"{"kind":"la-update","token":"\#(token)","device_id":"phone-\#(100 + index)","context_key":"\#(startKey)","attributes_type":"TripLiveActivityAttributes"}"#
                    let response = try? TestHTTPConnection(port: shared[index % 2].server.port, timeout: 90).request(
                        "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"], json: body)
                    if response?.status == 200 { phones.answered.withLock { _ = $0.insert(index) } }
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        try await offThePool { send(until: .now + .seconds(12)) }
        let lossy = answers.withLock { $0 }

        // Partition for 30 s: changes keep coming to both; the start is asked again of A.
        let connectionsBefore = try Self.connectionsLogged(log)
        try namespace.partition()
        let partitionedAt = ContinuousClock.now
        let startAgain = Task.detached { (try? Self.call(shared[0], "POST", "/v1/contexts/\(startKey)/start", json: startBody))?.status }
        try await offThePool { send(until: partitionedAt + Self.partition) }
        let during = answers.withLock { Array($0.dropFirst(lossy.count)) }
        try namespace.heal()
        let healedAt = ContinuousClock.now

        // Healed: the first change taken by each instance, then every phone current and the
        // outbox empty.
        var firstTaken: [Double] = []
        for (index, instance) in instances.enumerated() {
            let taken = try await eventually(timeout: 60) {
                let delay = counter.add(1, ordering: .relaxed).newValue
                let response = try Self.call(instance, "PUT", "/v1/contexts/trip:pg-netfault-\(index)", json: ContextAPITests.trip(delay: delay))
                let answer = Answer(key: "trip:pg-netfault-\(index)", delay: delay, status: response.status, code: response.errorCode, seconds: 0)
                answers.withLock { $0.append(answer) }
                return response.status == 200
            }
            #expect(taken, "instance \(index) takes changes again after the heal")
            firstTaken.append(Self.seconds(ContinuousClock.now - healedAt))
        }
        var truth: [String: Int] = [:]
        let drained = try await eventually(timeout: 90) {
            truth = try stored()
            let current = tokens.allSatisfy { key, tokens in tokens.allSatisfy { lastDelay($0) == truth[key] } }
            return try current && a.outboxIsEmpty()
        }
        let drainTime = ContinuousClock.now - healedAt
        phones.stop.store(true, ordering: .relaxed)
        await answering.value
        let packets = try namespace.packetCounts()
        #expect(drained, "every phone has the stored state and the outbox is empty after the heal")
        let all = answers.withLock { $0 }

        // Every change answered 2xx is stored: per context the stored one is the last taken, or
        // a later one whose 503 came after its commit (its answer lost with the connection).
        for key in tokens.keys {
            let mine = all.filter { $0.key == key }
            let lastTaken = mine.filter { $0.status == 200 || $0.status == 201 }.map(\.delay).max() ?? 0
            let value = truth[key] ?? -1
            #expect(
                value == lastTaken || mine.contains { $0.delay == value && $0.delay > lastTaken && $0.status == 503 },
                "\(key): stored \(value), last taken \(lastTaken)")
        }
        // Answers: 2xx, or 503 saying what happened; never a 500; bounded in time.
        let unexpected = all.filter { ![200, 201, 503].contains($0.status) }
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5).map { "\($0.status) \($0.code ?? "")" })")
        let refusals = all.filter { $0.status == 503 }
        #expect(refusals.allSatisfy { ["databaseUnavailable", "unavailable"].contains($0.code ?? "") }, "\(Set(refusals.map { $0.code ?? "-" }))")
        #expect(!during.filter { $0.status == 503 }.isEmpty, "the partition refused writes (else it tested nothing)")
        let slowest = all.map(\.seconds).max() ?? 0
        #expect(slowest < 75, "no request hung: the slowest took \(slowest) s")
        let startAgainStatus = await startAgain.value
        #expect(
            startAgainStatus == 200 || startAgainStatus == 503,
            "the start asked during the partition: \(startAgainStatus.map(String.init) ?? "no answer")")

        // No device started twice; nothing sent twice beyond what the partition left unrecorded.
        let startPushes = starters.map { token in a.aps(token).filter { $0["event"] as? String == "start" }.count }
        #expect(startPushes == [1, 1, 1, 1], "starts per device: \(startPushes)")
        let startRows = try a.server.app.store.starts.starts(contextKey: startKey)
        #expect(startRows.count == 4 && startRows.allSatisfy { $0.status == .sent }, "\(startRows.map { "\($0.status) \($0.reason ?? "")" })")
        let database = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
        defer { database.close() }
        let recorded = try database.read {
            try $0.queryOne("SELECT COUNT(*) AS n FROM deliveries WHERE status = 200 AND target_kind = 'token'")?.int("n") ?? 0
        }
        let answerTokens = (0..<4).map { String(format: "%064x", 0xa115_0000 + $0) }
        let accepted = (tokens.values.joined() + starters + answerTokens).map { sandbox.accepted(token: $0).count }.reduce(0, +)
        let reconnects = try Self.connectionsLogged(log) - connectionsBefore

        let taken = all.filter { $0.status == 200 || $0.status == 201 }.count
        let refusalSeconds = refusals.map(\.seconds)
        print(
            """
            PostgreSQL network faults (2 instances): \(all.count) changes sent (\(lossy.count) under 20 % loss and 300 ms delay, \
            \(during.count) during the 30 s partition), \(taken) answered 2xx and all stored, \(refusals.count) answered 503 \
            (\(Set(refusals.compactMap(\.code)).sorted().joined(separator: ", "))) after \(String(format: "%.1f", refusalSeconds.min() ?? 0))–\
            \(String(format: "%.1f", refusalSeconds.max() ?? 0)) s, none 500; slowest answer \(String(format: "%.1f", slowest)) s; \
            lossy phase answers took up to \(String(format: "%.1f", lossy.map(\.seconds).max() ?? 0)) s; first change taken again \
            \(firstTaken.map { String(format: "%.1f", $0) }.joined(separator: " / ")) s after the heal; \(reconnects) new connections \
            to PostgreSQL after the partition began; \(accepted) pushes accepted, \(recorded) recorded, duplicates \(accepted - recorded); \
            starts per device \(startPushes); packets \(packets); outbox drained and every phone current \(String(format: "%.1f", Self.seconds(drainTime))) s after the heal
            """)
    }

    /// The simulated phones' answers to their starts.
    final class StartAnswers: Sendable {
        let stop = Atomic<Bool>(false)
        let answered = Mutex<Set<Int>>([])
    }

    /// An admin request to `instance` that waits up to 90 s for its answer (a write during the
    /// partition may take as long as the pool's checkout timeout).
    static func call(_ instance: ContextAPITests.Setup, _ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try TestHTTPConnection(port: instance.server.port, timeout: 90).request(
            method, path, headers: ["Authorization": "Bearer \(ContextAPITests.adminKey)"], body: json.map { Array($0.utf8) })
    }

    /// Connections PostgreSQL authorized so far (`log_connections`).
    static func connectionsLogged(_ log: URL) throws -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "connection authorized").count - 1
    }
}
