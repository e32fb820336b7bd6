import Foundation
import LivelineCLI
import LivelineCrypto
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelineServer
import LivelineStore
import LivelineTestSupport

/// `liveline-bench fanout` and `liveline-bench upsert`: the engine's figures (fan-out and upsert rates), measured
/// on a real server (HTTP on a free port, SQLite in a temporary folder, the in-process APNs
/// sandbox over HTTP/2 + TLS).
public enum EngineBenchmark {
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

    /// Time from one `PUT /v1/contexts/{key}` to the sandbox having accepted the snapshot on
    /// every one of `tokens` registered `la-update` tokens, over `rounds` changes; and, in the
    /// same run, the same number of pushes sent straight through the server's `APNSClient`
    /// (the ceiling: no database, no rendering, no recording).
    public static func fanout(tokens count: Int, rounds: Int, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try makeServer(folder: folder)
        let app = server.app
        defer { app.shutdown() }
        guard let sandbox = server.sandbox else { throw EngineBenchmarkError("the server did not start its in-process sandbox") }
        let key = "trip:fanout"
        let user = try app.store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🚆", locale: "de", tokenHash: SHA256.hex("bench"), now: Date()
        )
        let tokens = (0..<count).map { String(format: "%064x", 0xfa0000 + $0) }
        let registering = ContinuousClock.now
        for (index, token) in tokens.enumerated() {
            sandbox.registerDevice(token: token)
            try app.store.tokens.register(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "phone-\(index)", kind: .update, environment: .sandbox,
                    token: token, attributesType: "TripLiveActivityAttributes", contextKey: key
                ), now: Date())
        }
        output(
            String(
                format: "%d la-update tokens registered for %@ in %.1f s; dispatcher batch %d rows, push spacing off",
                count, key, seconds(ContinuousClock.now - registering), app.engine.configuration.batchSize))

        let connection = try TestHTTPConnection(port: app.port, timeout: 60)
        var times: [Double] = []
        for round in 1...rounds {
            let before = sandbox.acceptedCount
            let started = ContinuousClock.now
            let response = try connection.request(
                "PUT", "/v1/contexts/\(key)", headers: ["Authorization": "Bearer \(adminKey)"], json: trip(delay: round)
            )
            guard response.status == 200 || response.status == 201 else {
                throw EngineBenchmarkError("PUT answered \(response.status): \(response.text)")
            }
            let committed = ContinuousClock.now
            let deadline = Date().addingTimeInterval(60)
            while sandbox.acceptedCount < before + count {
                guard Date() < deadline else {
                    throw EngineBenchmarkError("round \(round): only \(sandbox.acceptedCount - before) of \(count) accepted after 60 s")
                }
                usleep(500)
            }
            let elapsed = seconds(ContinuousClock.now - started)
            times.append(elapsed)
            output(
                String(
                    format: "round %d: PUT committed in %.1f ms; all %d pushes accepted %.3f s after the PUT was sent",
                    round, seconds(committed - started) * 1000, count, elapsed))
            // Let the dispatcher finish recording the round's attempts before the next change.
            while try app.store.outbox.depth(now: Date()).leased > 0 { usleep(1000) }
        }
        let sorted = times.sorted()
        output(
            String(
                format: "change → %d tokens accepted: median %.3f s, best %.3f s, worst %.3f s (goal < 1 s)",
                count, sorted[sorted.count / 2], sorted.first!, sorted.last!))

        // The ceiling: the same pushes straight through the client, all at once.
        let payload = Array(#"{"aps":{"timestamp":1767574000,"event":"update","content-state":{"delay":1}}}"#.utf8)
        var ceilings: [Double] = []
        for _ in 0..<min(rounds, 3) {
            let started = ContinuousClock.now
            let group = DispatchGroup()
            for token in tokens {
                group.enter()
                app.apns.send(.liveActivity(deviceToken: token, bundleID: sandbox.bundleID, payload: payload)) { _ in group.leave() }
            }
            group.wait()
            ceilings.append(seconds(ContinuousClock.now - started))
        }
        let ceiling = ceilings.min()!
        output(
            String(
                format: "ceiling: %d pushes straight through APNSClient in %.3f s; engine median / ceiling = %.2f×",
                count, ceiling, sorted[sorted.count / 2] / ceiling))
        let attempts = try app.store.deliveries.attempts(contextKey: key, limit: 1).first
        output("last recorded attempt: status \(attempts.map { String($0.status) } ?? "none"), rev \(attempts?.rev.map(String.init) ?? "?")")
    }

    /// Committed `Engine.putContext` calls per second in one thread, without HTTP: the ceiling of
    /// `PUT /v1/contexts/…` below the HTTP layer on a fresh SQLite file (WAL, `synchronous=NORMAL`):
    /// the payload check, then a write transaction of its own with its revision row and coalesced
    /// sync row (nothing is sent: the dispatcher does not run).
    public static func upsert(seconds duration: Double, contexts: Int, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder)
        let engine = Engine(store: store, sender: RecordingPushSender(), configuration: EngineConfiguration(bundleID: "dev.liveline.demo"))
        let state = try JSONValue(json: Data(trip(delay: 1).utf8)).objectValue!["contentState"]!
        let attributes = try JSONValue(json: Data(#"{"tripId":"t","line":"S5","destination":"Flughafen"}"#.utf8))
        let started = ContinuousClock.now
        var done = 0
        while seconds(ContinuousClock.now - started) < duration {
            try engine.putContext(
                key: "trip:\(done % contexts)", PutContextRequest(type: "TripLiveActivityAttributes", attributes: attributes, contentState: state)
            )
            done += 1
        }
        output(
            String(
                format: "write path without HTTP: %.0f committed puts/s (%d puts, one thread, no HTTP, SQLite WAL, %d contexts)",
                Double(done) / seconds(ContinuousClock.now - started), done, contexts))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

struct EngineBenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
