import Foundation
import LivelinePush
import LivelinePushWire
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

@Suite struct ApplicationTests {
    @Test func healthzAnswersWithoutAuth() throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try server.request("GET", "/healthz")
        #expect(response.status == 200)
        #expect(response.json?["status"] as? String == "ok")
    }

    @Test func anInProcessServerHasNoPortOrConnectionAndSaysWhichServerHas() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(server.app.port == 0, "it listens nowhere")
        for attempt in [{ _ = try server.port }, { _ = try server.connection() }] {
            #expect {
                try attempt()
            } throws: { error in
                String(describing: error).contains("in-process") && String(describing: error).contains("TestServer(.live)")
            }
        }
        #expect(try server.request("GET", "/healthz").status == 200)
        let live = try TestServer(.live)
        defer { live.stop() }
        #expect(try live.port == live.app.port && live.app.port > 0)
        #expect(try live.connection().request("GET", "/healthz").status == 200)
    }

    @Test func everyErrorHasTheOneJSONShape() throws {
        let server = try TestServer { $0.maxBodyBytes = 2048 }
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let auth = ["Authorization": "Bearer \(bearer)"]
        let cases: [(TestResponse, Int, String)] = [
            (try server.request("GET", "/api/nothing-here", headers: auth), 404, "notFound"),
            (try server.request("PUT", "/api/apns/register", headers: auth, body: Array("{}".utf8)), 405, "methodNotAllowed"),
            (try server.request("POST", "/api/apns/register", headers: auth, body: Array("{not json".utf8)), 400, "badRequest"),
            (
                try server.request(
                    "POST", "/api/apns/register", headers: auth.merging(["Content-Type": "text/plain"]) { $1 }, body: Array("kind=alert".utf8)),
                415, "unsupportedMediaType"
            ),
            (
                try server.request("POST", "/api/apns/register", headers: auth, body: Array(String(repeating: " ", count: 5000).utf8)), 413,
                "payloadTooLarge"
            ),
            (try server.request("GET", "/api/me", headers: [:]), 401, "unauthorized"),
        ]
        for (response, status, code) in cases {
            #expect(response.status == status)
            #expect(response.errorCode == code)
            #expect(response.errorMessage?.isEmpty == false)
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
        }
    }

    @Test func malformedInputNeverCausesA500() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        var generator = SeededGenerator(seed: 20261129)
        var bodies = [
            "", "null", "[]", "{}", "\"x\"", "1e999", "{\"kind\":", "{\"kind\":null,\"token\":null}",
            String(repeating: "[", count: 5000), "{\"kind\":\"alert\",\"token\":\"\u{0}\u{1}\"}",
            "{\"kind\":\"alert\",\"token\":\"" + String(repeating: "a", count: 5000) + "\"}",
            "{\"kind\":\"web-push\",\"token\":\"{\\\"endpoint\\\":1}\"}",
            "{\"kind\":\"la-update\",\"token\":\"aabbccddeeff0011\",\"context_key\":\"\u{202E}x y\"}",
            "\u{FEFF}{}", "{\"kind\":\"alert\",\"token\":\"aabbccddeeff0011\",\"device_id\":\"" + String(repeating: "d", count: 500) + "\"}",
            // Foundation's JSONDecoder traps on a text ending right after its 513th `[`.
            String(repeating: "[", count: 513), "{\"kind\":\"web-push\",\"token\":\"" + String(repeating: "[", count: 513) + "\"}",
        ]
        for _ in 0..<60 {
            let length = Int.random(in: 1...300, using: &generator)
            bodies.append(String(decoding: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }, as: UTF8.self))
        }
        // Each route with a garbage parameter and with a valid one (so its handler runs too).
        let paths = server.app.routes.flatMap { route in
            ["%00../x", String(user.id.rawValue)].map { value in
                (route, route.path(Dictionary(uniqueKeysWithValues: route.parameterNames.map { ($0, value) })))
            }
        }
        for (route, path) in paths {
            for body in bodies {
                let response = try server.request(
                    route.method.rawValue, path, headers: ["Authorization": "Bearer \(bearer)"], body: Array(body.utf8)
                )
                #expect(response.status < 500, "\(route) with \(body.prefix(40).debugDescription) → \(response.status)")
            }
        }
        // None of it was stored.
        #expect(try server.app.store.tokens.history(householdID: user.householdID).isEmpty)
    }

    @Test func aBodyNestedDeeperThanTheDecodersLimitIsA400ThatSaysSo() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let deep = try server.request("POST", "/api/apns/register", token: bearer, json: String(repeating: "[", count: 513))
        #expect(deep.status == 400)
        #expect(deep.text.contains("nests arrays and objects more than 512 deep"), "\(deep.text)")
        let token = "{\"kind\":\"web-push\",\"token\":\"" + String(repeating: "[", count: 513) + "\"}"
        let deepToken = try server.request("POST", "/api/apns/register", token: bearer, json: token)
        #expect(deepToken.status == 400)
        #expect(deepToken.text.contains("token"), "\(deepToken.text)")
        // 512 deep is within the limit: refused for its shape, not its depth.
        let within = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let shallow = try server.request("POST", "/api/apns/register", token: bearer, json: within)
        #expect(shallow.status == 400)
        #expect(!shallow.text.contains("deep"), "\(shallow.text)")
    }

    @Test func aRestartKeepsDataAndAppliesNoMigrationTwice() throws {
        let server = try TestServer()
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        server.stop(keepData: true)
        let again = try TestServer(folder: server.folder)
        defer { again.stop() }
        let me = try again.request("GET", "/api/me", token: bearer)
        #expect(me.status == 200)
        #expect((me.json?["user"] as? [String: Any])?["userId"] as? Int == user.id.rawValue)
        let versions = try again.app.store.database.read { try Migrator.appliedVersions($0) }
        // The core's, and shopping's former core versions (recorded for a build from before the move).
        #expect(versions == Set(Migrator().migrations.map(\.version)).union(Migrator.retiredVersions))
    }

    @Test(.enabled(if: !TestBackend.isPostgres, "SQLite has one server per data folder; PostgreSQL's are shared"))
    func aSecondServerOnTheSameSQLiteFolderIsRefusedUntilTheFirstStops() throws {
        let first = try TestServer()
        var firstStopped = false
        defer { if !firstStopped { first.stop() } }
        #expect {
            try TestServer(folder: first.folder)
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return (error as? StoreError)?.code == .busy && message.contains("pid \(getpid())") && message.contains("PostgreSQL")
        }
        // Other commands still use the database while the server runs.
        let (_, bearer) = try first.addUser(household: "Fisch", name: "Dennis")
        #expect(try first.request("GET", "/api/me", token: bearer).status == 200)
        first.stop(keepData: true)
        firstStopped = true
        let second = try TestServer(folder: first.folder)
        defer { second.stop() }
        #expect(try second.request("GET", "/api/me", token: bearer).status == 200)
    }

    @Test(.enabled(if: TestBackend.isPostgres, "instances are recorded where several share a database"))
    func aServingInstanceIsRecordedWithItsBuildsVersionsUntilItStops() throws {
        let server = try TestServer()
        var stopped = false
        defer { if !stopped { server.stop() } }
        let postgres = try #require(server.app.store.database as? PostgresDatabase)
        let other = try PostgresDatabase(settings: postgres.settings, poolSize: 1)  // as another instance sees it
        let rows = { try other.read { try $0.query("SELECT id, versions FROM liveline_instances") } }
        let core = "core:\(Migrator().latestVersion) "
        let ours = try rows().filter { try $0.string("versions").hasPrefix(core) }
        #expect(ours.count == 1, "one row, with the versions its build knows")
        let id = try #require(try ours.first?.string("id"))
        server.stop(keepData: true)
        stopped = true
        #expect(try other.read { try $0.query("SELECT id FROM liveline_instances WHERE id = $1", [.text(id)]) }.isEmpty, "removed at a clean stop")
    }

    @Test func aDatabaseFromANewerVersionIsRefusedClearly() throws {
        let server = try TestServer()
        try server.app.store.database.write { transaction in
            _ = try transaction.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [9999, "future", 0])
        }
        server.stop(keepData: true)
        defer { try? FileManager.default.removeItem(at: server.folder) }
        do {
            _ = try TestServer(folder: server.folder)
            Issue.record("a newer database was opened")
        } catch {
            #expect(String(describing: error).contains("newer"))
            #expect(String(describing: error).contains("9999"))
        }
    }
}

typealias TestResponse = LivelineTestSupport.TestHTTPConnection.Response

/// A deterministic generator so a failing fuzz case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension ApplicationTests {
    @Test func withoutAnAPNSKeyPushesGoToTheInProcessSandbox() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let sandbox = try #require(server.sandbox)
        let token = String(repeating: "5e", count: 32)
        sandbox.registerDevice(token: token)
        let result = await server.app.apns.send(
            .liveActivity(
                deviceToken: token, bundleID: sandbox.bundleID, payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)
            ))
        #expect(result.outcome == .delivered)
        #expect(sandbox.accepted(token: token).count == 1)
        #expect(server.app.apnsDescription.contains("in-process APNs sandbox"))
        #expect(FileManager.default.fileExists(atPath: server.folder.appendingPathComponent("apns-sandbox").path))
    }

    @Test func anIncompleteAPNSKeyConfigurationIsRefusedByName() {
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.fromEnvironment(["LIVELINE_APNS_KEY_PATH": "/tmp/AuthKey.p8"])
        }
        do {
            _ = try ServerConfiguration.fromEnvironment(["LIVELINE_APNS_KEY_PATH": "/tmp/AuthKey.p8", "LIVELINE_APNS_KEY_ID": "ABC"])
        } catch {
            #expect(String(describing: error).contains("LIVELINE_APNS_TEAM_ID"))
        }
        do {
            _ = try ServerConfiguration.fromEnvironment(["LIVELINE_APNS_BUNDLE_ID": "dev.liveline.demo.push-type.liveactivity"])
            Issue.record("a topic was taken as a bundle id")
        } catch {
            #expect(String(describing: error).contains("looks like a topic"))
        }
    }

    @Test func pushSettingsAreReadFromTheEnvironmentAndBadValuesNamed() throws {
        let configuration = try ServerConfiguration.fromEnvironment([
            "LIVELINE_PUSH_MIN_INTERVAL_MS": "250", "LIVELINE_PUSH_RETRY_DELAY_MS": "50", "LIVELINE_PUSH_MAX_ATTEMPTS": "3",
            "LIVELINE_PRIORITY_BUDGET": "6", "LIVELINE_PRIORITY_BUDGET_FREQUENT": "20",
            "LIVELINE_PRIORITY_BUDGET_BY_TYPE": "TripLiveActivityAttributes=20, ShoppingActivityAttributes=4",
            "LIVELINE_QUIET_DEBOUNCE_S": "10", "LIVELINE_START_BUDGET": "3", "LIVELINE_DISPATCHER": "off",
        ])
        #expect(configuration.minimumPushInterval == 0.25)
        #expect(configuration.pushRetry.initialDelay == .milliseconds(50) && configuration.pushRetry.maximumAttempts == 3)
        #expect(configuration.priorityBudget == 6 && configuration.frequentPriorityBudget == 20)
        #expect(configuration.priorityBudgetByType == ["TripLiveActivityAttributes": 20, "ShoppingActivityAttributes": 4])
        #expect(configuration.quietChangeDebounce == 10 && configuration.startBudget == 3 && !configuration.dispatcherEnabled)
        for (name, value) in [
            ("LIVELINE_PRIORITY_BUDGET_BY_TYPE", "Trip"), ("LIVELINE_DISPATCHER", "maybe"), ("LIVELINE_PUSH_MAX_ATTEMPTS", "0"),
            ("LIVELINE_START_BUDGET", "many"),
        ] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try ServerConfiguration.fromEnvironment([name: value]) }
            do {
                _ = try ServerConfiguration.fromEnvironment([name: value])
            } catch {
                #expect(String(describing: error).contains(name))
            }
        }
    }

    @Test func theEngineLogLevelIsReadFromTheEnvironmentAndDefaultsToInfo() throws {
        #expect(try ServerConfiguration.fromEnvironment([:]).logLevel == .info)
        for level in ["debug", "info", "warning", "error"] {
            #expect(try ServerConfiguration.fromEnvironment(["LIVELINE_LOG_LEVEL": level]).logLevel.rawValue == level)
        }
        for value in ["warn", "DEBUG", "off", ""] {
            do {
                _ = try ServerConfiguration.fromEnvironment(["LIVELINE_LOG_LEVEL": value])
                Issue.record("LIVELINE_LOG_LEVEL=\(value) was taken")
            } catch {
                #expect(String(describing: error).contains("LIVELINE_LOG_LEVEL must be debug, info, warning or error"))
            }
        }
    }
}
