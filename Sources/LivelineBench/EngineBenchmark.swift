import Foundation
import Liveline
import LivelineCrypto
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Synchronization

/// `liveline-bench fanout` and `liveline-bench upsert`: the engine's figures (fan-out and upsert rates), measured
/// on a real server (HTTP on a free port, SQLite in a temporary folder, the in-process APNs
/// sandbox over HTTP/2 + TLS).
public enum EngineBenchmark {
    /// The most rounds a smaller size runs (``roundsFor(count:largest:rounds:)``).
    static let mostRounds = 30

    /// `rounds` for the largest size; a smaller size runs as many rounds as push the same number of
    /// tokens, up to ``mostRounds``. Its rounds are cheap and its median is what the machine's noise
    /// moves most: with a few rounds the cost of one more token came out far apart between runs
    /// (docs/decisions/the-fan-out-benchmark.md).
    static func roundsFor(count: Int, largest: Int, rounds: Int) -> Int {
        max(rounds, min(mostRounds, rounds * largest / max(count, 1)))
    }

    /// Servers not released before the process ends: after 100,000 tokens the server's teardown
    /// releases a chain of objects deep enough to overflow the main thread's stack (cause not yet
    /// found, docs/performance.md, "Fan-out").
    static let keptUntilExit = Mutex<[Assembly.Server]>([])

    static let adminKey = "bench-admin-key-0123456789abcdef"

    static func trip(delay: Int) -> String {
        #"{"type":"TripLiveActivityAttributes","attributes":{"tripId":"t","line":"S5","destination":"Flughafen"},"contentState":{"currentStop":"Hauptbahnhof","nextStop":"Messe","nextStopTime":803461320,"remainingTime":240,"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}}"#
    }

    static func makeServer(folder: URL) throws -> Assembly.Server {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = folder
        configuration.accessLog = "off"
        configuration.logLevel = .warning  // the figures, not the server's start and stop
        configuration.adminKey = adminKey
        configuration.minimumPushInterval = 0
        let server = try Assembly.server(configuration)
        try server.app.start()
        return server
    }

    /// For each count in `counts`: the time from one `PUT /v1/contexts/{key}` to the sandbox
    /// having accepted the snapshot on every one of that many registered `la-update` tokens, over
    /// `rounds` changes (more for the smaller sizes, ``roundsFor(count:largest:rounds:)``); in the
    /// same run, the same number of pushes sent straight through the server's `APNSClient` (the
    /// ceiling: no database, no rendering, no recording), each
    /// ceiling round after one of the engine's; and the process's peak memory in the size's first
    /// engine round (counted from what the process held when it began, the earlier sizes' heap
    /// included). Then the cost of one more token between the sizes (the curve should be a line).
    public static func fanout(counts: [Int], rounds: Int, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try makeServer(folder: folder)
        let app = server.app
        defer { app.shutdown() }
        // Kept until the process exits (``keptUntilExit``).
        keptUntilExit.withLock { $0.append(server) }
        guard server.sandbox != nil else { throw EngineBenchmarkError("the server did not start its in-process sandbox") }
        let user = try app.store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🚆", locale: "de", tokenHash: SHA256.hex("bench"), now: Date()
        )
        var medians: [(count: Int, seconds: Double)] = []
        output("fan-out: one PUT /v1/contexts/{key} → every la-update token accepted by the in-process sandbox (HTTP/2 + TLS)")
        output("   tokens   median s     best s  ceiling s   × ceil     µs/token    peak MB   rounds")
        let largest = counts.max() ?? 0
        for (offset, count) in counts.enumerated() {
            let sizeRounds = roundsFor(count: count, largest: largest, rounds: rounds)
            let key = "trip:fanout-\(count)"
            let tokens = (0..<count).map { String(format: "%064x", 0xfa00000 + offset * 1_000_000 + $0) }
            try register(tokens, for: key, user: user, device: "phone-\(offset)", in: server)
            let connection = try TestHTTPConnection(port: app.port, timeout: 120)
            // The engine's rounds and the ceiling's alternate (the machine's speed moves between
            // minutes: neither side gets all the slow ones).
            var times: [Double] = []
            var ceilings: [Double] = []
            // The size's first round's, before this size's ceiling rounds (a ceiling's requests,
            // all queued at once, leave the heap larger than the engine's batches do).
            var peak = 0.0
            ProcessMemory.resetPeak()
            for round in 1...sizeRounds {
                times.append(try engineRound(round, key: key, tokens: tokens, connection: connection, in: server))
                if round == 1 { peak = ProcessMemory.peakMegabytes() }
                ceilings.append(try ceilingRound(tokens: tokens, in: server))
            }
            let sorted = times.sorted()
            let median = sorted[sorted.count / 2]
            let ceiling = ceilings.sorted()[ceilings.count / 2]
            output(
                String(
                    format: "%9d %10.3f %10.3f %10.3f %7.2f× %12.2f %10.0f %8d", count, median, sorted.first!, ceiling, median / ceiling,
                    median / Double(count) * 1e6, peak, sizeRounds))
            let everyRound = zip(times, ceilings).map { String(format: "%.3f/%.3f", $0, $1) }.joined(separator: " ")
            output("          every round, engine/ceiling s: \(everyRound)")
            medians.append((count, median))
        }
        // Linear: the cost of one more token is the same between each pair of sizes.
        for (low, high) in zip(medians, medians.dropFirst()) where high.count > low.count {
            let slope = (high.seconds - low.seconds) / Double(high.count - low.count) * 1e6
            output(String(format: "one more token between %d and %d: %.2f µs", low.count, high.count, slope))
        }
        output(
            "(ceiling: the median of as many runs of the same pushes straight through APNSClient, each after one of the engine's rounds; "
                + "\(rounds) rounds for the largest size, a smaller one as many as push the same number of tokens, up to \(mostRounds); "
                + "goal: median ≤ 1.2× ceiling)")
    }

    /// Registers `tokens` as `la-update` tokens of `key` with the sandbox and the store, in
    /// transactions of 5,000.
    static func register(_ tokens: [String], for key: String, user: UserRecord, device: String, in server: Assembly.Server) throws {
        let app = server.app
        for start in stride(from: 0, to: tokens.count, by: 5_000) {
            let chunk = start..<min(tokens.count, start + 5_000)
            for index in chunk { server.sandbox?.registerDevice(token: tokens[index]) }
            try app.store.write { transaction in
                for index in chunk {
                    _ = try app.store.tokens.register(
                        TokenRegistration(
                            householdID: user.householdID, userID: user.id, deviceID: "\(device)-\(index)", kind: .update,
                            environment: .sandbox, token: tokens[index], attributesType: "TripLiveActivityAttributes", contextKey: key
                        ), now: Date(), in: transaction)
                }
            }
            app.store.tokens.noteCommitted()
        }
    }

    /// One engine round: a PUT, timed until the sandbox accepted a push for every token; returns
    /// once the dispatcher recorded the attempts too (not timed).
    static func engineRound(
        _ round: Int, key: String, tokens: [String], connection: TestHTTPConnection, in server: Assembly.Server
    ) throws -> Double {
        guard let sandbox = server.sandbox else { throw EngineBenchmarkError("the server did not start its in-process sandbox") }
        let before = sandbox.acceptedCount
        let started = ContinuousClock.now
        let response = try connection.request(
            "PUT", "/v1/contexts/\(key)", headers: ["Authorization": "Bearer \(adminKey)"], json: trip(delay: round)
        )
        guard response.status == 200 || response.status == 201 else {
            throw EngineBenchmarkError("PUT answered \(response.status): \(response.text)")
        }
        let deadline = Date().addingTimeInterval(120)
        while sandbox.acceptedCount < before + tokens.count {
            guard Date() < deadline else {
                throw EngineBenchmarkError("round \(round): only \(sandbox.acceptedCount - before) of \(tokens.count) accepted after 120 s")
            }
            usleep(200)
        }
        let elapsed = seconds(ContinuousClock.now - started)
        // Let the dispatcher finish recording the round's attempts before the ceiling's round.
        while try server.app.store.outbox.depth(now: Date()).leased > 0 { usleep(1000) }
        return elapsed
    }

    /// The ceiling: the same pushes straight through the client, all at once — the payload the
    /// engine's round sent (the full snapshot with its stale date), to the same tokens, made as
    /// the engine makes them (the topic once, ids from one generator), while timed.
    static func ceilingRound(tokens: [String], in server: Assembly.Server) throws -> Double {
        guard let sandbox = server.sandbox, let payload = sandbox.accepted(token: tokens[0]).last?.payload else {
            throw EngineBenchmarkError("the sandbox holds no push of the engine's round")
        }
        let started = ContinuousClock.now
        let group = DispatchGroup()
        let topic = APNSPushType.liveActivity.topic(bundleID: sandbox.bundleID)
        var ids = APNSIDGenerator()
        for token in tokens {
            group.enter()
            let notification = APNSNotification(deviceToken: token, pushType: .liveActivity, topic: topic, apnsID: ids.next(), payload: payload)
            server.app.apns.send(notification) { _ in group.leave() }
        }
        group.wait()
        return seconds(ContinuousClock.now - started)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

struct EngineBenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
