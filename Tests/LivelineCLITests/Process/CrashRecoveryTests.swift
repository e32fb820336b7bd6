import Foundation
import LivelineCrypto
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// Nothing committed is lost on a crash (`docs/engine.md`, "The transactional outbox"): a server
/// process is killed with SIGKILL after its changes committed and before their pushes went out;
/// after a restart on the same data folder every committed change reaches the APNs sandbox.
@Suite struct CrashRecoveryTests {
    static let adminKey = "crash-test-admin-key-0123456789"

    /// The child's settings: the admin key, and APNs = the test's sandbox.
    static func environment(_ sandbox: APNSSandbox) -> [String: String] {
        [
            "LIVELINE_ADMIN_KEY": adminKey,
            "LIVELINE_APNS_KEY_PATH": sandbox.keyFile.path, "LIVELINE_APNS_KEY_ID": sandbox.keyID,
            "LIVELINE_APNS_TEAM_ID": sandbox.teamID, "LIVELINE_APNS_HOST": "127.0.0.1",
            "LIVELINE_APNS_PORT": String(sandbox.devicePort), "LIVELINE_APNS_MANAGEMENT_PORT": String(sandbox.managementPort),
            "LIVELINE_APNS_CA_FILE": sandbox.certificateFile.path,
        ]
    }

    /// A user of the app, made in the data folder before the server starts; its bearer token.
    static func user(in data: URL) throws -> String {
        let bearer = SecureRandom.token(prefix: "ll_")
        _ = try Store.openSQLite(folder: data).accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(bearer), now: Date()
        )
        return bearer
    }

    static func trip(delay: Int) -> String {
        #"{"type":"TripLiveActivityAttributes","attributes":{"tripId":"t","line":"S5","destination":"F"},"contentState":{"currentStop":"A","nextStop":"B","nextStopTime":803461320,"remainingTime":240,"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}}"#
    }

    @Test func everyChangeCommittedBeforeASIGKILLReachesTheSandboxAfterARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let environment = Self.environment(sandbox)
        let bearer = try Self.user(in: data)

        // The first life: APNs answers slowly, so pushes are in flight when the process dies.
        sandbox.setFaults(SandboxFaults(seed: 1, latency: .seconds(3)))
        let first = try ServeProcess(data: data, environment: environment)
        let keys = (0..<4).map { "trip:crash-\($0)" }
        var tokens: [String: [String]] = [:]
        for (index, key) in keys.enumerated() {
            for phone in 0..<2 {
                let token = String(format: "%064x", 0xc0ffee00 + index * 16 + phone)
                sandbox.registerDevice(token: token)
                let registered = try TestHTTPConnection(port: first.port).request(
                    "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
                    json: """
                        {"kind":"la-update","token":"\(token)","device_id":"phone-\(index)-\(phone)","context_key":"\(key)","attributes_type":"TripLiveActivityAttributes"}
                        """
                )
                #expect(registered.status == 200, "\(registered.text)")
                tokens[key, default: []].append(token)
            }
        }
        let changes = 5
        for delay in 1...changes {
            for key in keys {
                let put = try TestHTTPConnection(port: first.port).request(
                    "PUT", "/v1/contexts/\(key)", headers: ["Authorization": "Bearer \(Self.adminKey)"], json: Self.trip(delay: delay)
                )
                #expect(put.status == 200 || put.status == 201, "\(put.text)")
            }
        }
        first.kill(SIGKILL)
        #expect(first.process.termination == .signalled(SIGKILL))

        let lastDelay = { (token: String) -> Int? in
            sandbox.accepted(token: token).compactMap { push -> Int? in
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
                return ((json?["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["delay"] as? Int
            }.last
        }
        let allTokens = tokens.values.flatMap { $0 }
        #expect(allTokens.allSatisfy { lastDelay($0) != changes }, "the last changes had not gone out before the kill")

        // The second life, on the same data folder: everything committed goes out.
        sandbox.setFaults(SandboxFaults(seed: 1))
        let second = try ServeProcess(data: data, environment: environment)
        defer { second.kill(SIGTERM) }
        let arrived = await eventually(timeout: 20) { allTokens.allSatisfy { lastDelay($0) == changes } }
        #expect(arrived, "last delays: \(allTokens.map { lastDelay($0) ?? -1 })")
        for key in keys {
            let read = try TestHTTPConnection(port: second.port).request(
                "GET", "/v1/contexts/\(key)", headers: ["Authorization": "Bearer \(Self.adminKey)"]
            )
            #expect(read.json?["rev"] as? Int == changes)
        }
    }

    @Test func aPushInFlightWhenTheProcessDiedIsSentAgainAfterItsLease() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let environment = Self.environment(sandbox).merging(["LIVELINE_OUTBOX_LEASE_S": "40"]) { $1 }
        let bearer = try Self.user(in: data)
        let token = String(repeating: "c3", count: 32)
        sandbox.registerDevice(token: token)
        // APNs answers after 60 s: the dispatcher (lease 40 s, so it waits 32 s for answers) holds
        // the row leased while the push is in flight — a wide window for the kill on a busy machine
        // (a CI run saw this test's own polling held up 16 s while its sibling tests started
        // servers on both cores; with a 16 s window the row was given back before the kill).
        sandbox.setFaults(SandboxFaults(seed: 1, latency: .seconds(60)))

        let first = try ServeProcess(data: data, environment: environment)
        let registered = try TestHTTPConnection(port: first.port).request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            json:
                #"{"kind":"la-update","token":"\#(token)","device_id":"phone","context_key":"trip:inflight","attributes_type":"TripLiveActivityAttributes"}"#
        )
        #expect(registered.status == 200)
        let put = try TestHTTPConnection(port: first.port).request(
            "PUT", "/v1/contexts/trip:inflight", headers: ["Authorization": "Bearer \(Self.adminKey)"], json: Self.trip(delay: 3)
        )
        #expect(put.status == 201)
        // The push reached APNs, whose answer is still on its way: the row is leased, no newer one
        // waits. Killed the moment the sandbox has it, from a thread of its own: an async wait
        // resumes only when the threads every test's async code shares are free, and a busy run
        // once held it past the dispatcher's 32 s wait for the answer (the row was given back).
        let child = first.process
        let reached = try await offThePool {
            guard eventuallyBlocking(timeout: 30, { sandbox.accepted(token: token).count == 1 }) else { return false }
            child.send(SIGKILL)
            return true
        }
        if !reached {
            let metrics = try? TestHTTPConnection(port: first.port).request("GET", "/metrics", headers: ["Authorization": "Bearer \(Self.adminKey)"])
                .text
            let timeline = try? TestHTTPConnection(port: first.port).request(
                "GET", "/v1/contexts/trip:inflight/timeline", headers: ["Authorization": "Bearer \(Self.adminKey)"]
            ).text
            Issue.record(
                "the push never reached the sandbox; child said: \(first.output.text)\nmetrics: \(metrics ?? "-")\ntimeline: \(timeline ?? "-")\nsandbox connections: \(sandbox.connectionCount)"
            )
        }
        first.kill(SIGKILL)  // when not killed above; either way, waits for its end
        let inFlight = try Store.openSQLite(folder: data).outbox.depth(now: Date())
        #expect(inFlight.leased == 1, "the push was in flight (its row leased) when the process died")

        sandbox.setFaults(SandboxFaults(seed: 1))
        let second = try ServeProcess(data: data, environment: environment)
        defer { second.kill(SIGTERM) }
        let resent = await eventually(timeout: 90) { sandbox.accepted(token: token).count == 2 }
        if !resent {
            let timeline = try? TestHTTPConnection(port: second.port).request(
                "GET", "/v1/contexts/trip:inflight/timeline", headers: ["Authorization": "Bearer \(Self.adminKey)"]
            ).text
            let metrics = try? TestHTTPConnection(port: second.port).request("GET", "/metrics", headers: ["Authorization": "Bearer \(Self.adminKey)"])
                .text
            Issue.record(
                "not sent again once the dead process's lease ran out (accepted \(sandbox.accepted(token: token).count)); timeline: \(timeline ?? "-")\nmetrics: \(metrics?.split(separator: "\n").filter { $0.hasPrefix("liveline_pushes") || $0.hasPrefix("liveline_outbox") }.joined(separator: " | ") ?? "-")\nsecond said: \(second.output.text)"
            )
        }
        let store = try Store.openSQLite(folder: data)
        #expect(try await eventually { try store.deliveries.attempts(contextKey: "trip:inflight").contains { $0.status == 200 } })
        #expect(try store.outbox.depth(now: Date()).leased == 0)
    }
}
