import Foundation
import LivelineCrypto
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// One server, both APNs environments: the team's development builds beside App Store builds
/// (`docs/apns.md` §1.1). One key works for both; each environment has its own server.
@Suite struct EnvironmentTests {
    @Test func withAKeyBothEnvironmentsAreServedUnlessTheServerIsPointedAtOneOtherServer() throws {
        let key = ["LIVELINE_APNS_KEY_PATH": "/tmp/AuthKey.p8", "LIVELINE_APNS_KEY_ID": "ABCDEFGHIJ", "LIVELINE_APNS_TEAM_ID": "TEAM000001"]
        let apple = try ServerConfiguration.fromEnvironment(key).apns
        #expect(apple.servesOtherEnvironment && apple.otherEnvironment == .production)
        #expect(apple.apnsEnvironment.device.host == "api.sandbox.push.apple.com")
        #expect(apple.otherAPNSEnvironment.device.host == "api.push.apple.com")
        let one = try ServerConfiguration.fromEnvironment(key.merging(["LIVELINE_APNS_HOST": "127.0.0.1", "LIVELINE_APNS_PORT": "2197"]) { $1 }).apns
        #expect(!one.servesOtherEnvironment, "a server pointed at one APNs-speaking server serves that one only")
        let two = try ServerConfiguration.fromEnvironment(
            key.merging([
                "LIVELINE_APNS_ENVIRONMENT": "production", "LIVELINE_APNS_HOST": "127.0.0.1", "LIVELINE_APNS_PORT": "2197",
                "LIVELINE_APNS_DEVELOPMENT_HOST": "127.0.0.2", "LIVELINE_APNS_DEVELOPMENT_PORT": "2297",
                "LIVELINE_APNS_DEVELOPMENT_MANAGEMENT_PORT": "2295",
            ]) { $1 }
        ).apns
        #expect(two.servesOtherEnvironment && two.otherEnvironment == .sandbox)
        #expect(two.apnsEnvironment.device.port == 2197 && two.otherAPNSEnvironment.device.description == "127.0.0.2:2297")
        #expect(two.otherAPNSEnvironment.management.description == "127.0.0.2:2295", "its channels are managed there")
        #expect(apple.otherAPNSEnvironment.management.host == APNSEnvironment.production.management.host)
        // Opted out: the default environment only.
        let only = try ServerConfiguration.fromEnvironment(key.merging(["LIVELINE_APNS_ENVIRONMENTS": "one"]) { $1 }).apns
        #expect(!only.servesOtherEnvironment)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["LIVELINE_APNS_ENVIRONMENTS": "three"]) }
        // A local server for development, Apple for production: the CA file is the local one's only.
        let mixed = try ServerConfiguration.fromEnvironment(
            key.merging(["LIVELINE_APNS_DEVELOPMENT_HOST": "127.0.0.1", "LIVELINE_APNS_CA_FILE": "/tmp/sandbox-ca.pem"]) { $1 }
        ).apns
        #expect(mixed.apnsEnvironment.device.caFile == "/tmp/sandbox-ca.pem" && mixed.otherAPNSEnvironment.device.caFile == nil)
        #expect(!(try ServerConfiguration.fromEnvironment([:]).apns.servesOtherEnvironment), "the in-process sandbox: one environment")
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["LIVELINE_APNS_PRODUCTION_PORT": "0"]) }
    }

    /// `LIVELINE_SANDBOX_ENVIRONMENTS=both`: without a key, one in-process sandbox per environment,
    /// one key and certificate; each token reaches its own, a token of unknown environment is learned.
    @Test func theInProcessSandboxPlaysBothEnvironmentsWhenAsked() async throws {
        #expect(try ServerConfiguration.fromEnvironment(["LIVELINE_SANDBOX_ENVIRONMENTS": "both"]).apns.sandboxPlaysBoth)
        #expect(try ServerConfiguration.fromEnvironment([:]).apns.sandboxPlaysBoth == false)
        #expect {
            try ServerConfiguration.fromEnvironment(["LIVELINE_SANDBOX_ENVIRONMENTS": "two"])
        } throws: {
            ($0 as? ConfigurationError)?.message == "LIVELINE_SANDBOX_ENVIRONMENTS must be one or both, not 'two'"
        }
        let server = try TestServer {
            $0.apns.sandboxPlaysBoth = true
            $0.adminKey = ContextAPITests.adminKey
        }
        defer { server.stop() }
        let development = try #require(server.sandbox)
        let production = try #require(server.otherSandbox)
        #expect(development.environment == .development && production.environment == .production)
        #expect(development.keyFile == production.keyFile && development.certificateFile == production.certificateFile)
        #expect(server.app.engine.configuration.environments == [.sandbox, .production])

        let (_, bearer) = try server.addUser(household: "both", name: "Ada")
        let debug = String(repeating: "d7", count: 32)
        let store = String(repeating: "a7", count: 32)
        let unsaid = String(repeating: "c7", count: 32)
        development.registerDevice(token: debug)
        production.registerDevice(token: store)
        production.registerDevice(token: unsaid)
        for (index, token, environment) in [(0, debug, "\"sandbox\""), (1, store, "\"production\""), (2, unsaid, "null")] {
            let response = try server.request(
                "POST", "/api/apns/register", token: bearer,
                json: #"{"kind":"la-update","token":"\#(token)","device_id":"p\#(index)","context_key":"trip:sb","environment":\#(environment)}"#)
            #expect(response.status == 200, "\(response.text)")
        }
        let put = try server.request("PUT", "/v1/contexts/trip:sb", token: ContextAPITests.adminKey, json: ContextAPITests.trip(delay: 3))
        #expect(put.status == 201, "\(put.text)")
        #expect(await eventually { production.accepted(token: unsaid).count == 1 }, "learned in production, not dead")
        #expect(development.accepted(token: debug).count == 1 && production.accepted(token: store).count == 1)
        #expect(development.accepted(token: store).isEmpty && production.accepted(token: debug).isEmpty)
    }

    @Test func eachDeviceGetsItsUpdatesThroughItsOwnEnvironment() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-environments-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // One key and one certificate (one CA file) for both, as Apple's one key serves both.
        let pair = try APNSSandbox.startBoth(SandboxConfiguration(folder: folder.appendingPathComponent("apns")))
        defer { pair.stop() }
        let (development, production) = (pair.development, pair.production)

        let setup = try ContextAPITests.Setup(folder: folder.appendingPathComponent("data"), external: development) { configuration in
            configuration.apns.productionHost = "127.0.0.1"
            configuration.apns.productionPort = production.devicePort
            configuration.apns.productionManagementPort = production.managementPort
        }
        defer { setup.stop() }
        #expect(setup.server.app.engine.configuration.environments == [.sandbox, .production])

        // A debug build's phone, an App Store build's, and one registered without an environment
        // (the default: development).
        let debug = String(repeating: "d1", count: 32)
        let store = String(repeating: "a5", count: 32)
        let unsaid = String(repeating: "c3", count: 32)
        // And an App Store build's registered without one: development refuses it (BadDeviceToken),
        // production takes it.
        let unsaidStore = String(repeating: "c4", count: 32)
        development.registerDevice(token: debug)
        production.registerDevice(token: store)
        development.registerDevice(token: unsaid)
        production.registerDevice(token: unsaidStore)
        for (index, token, environment) in [
            (0, debug, "\"sandbox\""), (1, store, "\"production\""), (2, unsaid, "null"), (3, unsaidStore, "null"),
        ] {
            let response = try setup.server.request(
                "POST", "/api/apns/register", token: setup.bearer,
                json:
                    #"{"kind":"la-update","token":"\#(token)","device_id":"phone-\#(index)","context_key":"trip:both","environment":\#(environment)}"#
            )
            #expect(response.status == 200, "\(response.text)")
        }
        #expect(try setup.admin("PUT", "/v1/contexts/trip:both", json: ContextAPITests.trip(delay: 2)).status == 201)
        #expect(
            try await eventually { try setup.dispatcherIsIdle() && setup.server.app.store.deliveries.attempts(contextKey: "trip:both").count == 5 })
        #expect(development.accepted(token: debug).count == 1 && development.accepted(token: unsaid).count == 1)
        #expect(production.accepted(token: store).count == 1)
        #expect(production.accepted(token: debug).isEmpty && development.accepted(token: store).isEmpty, "nothing to the wrong environment")
        #expect(production.accepted(token: unsaidStore).count == 1, "tried in production, not called dead")
        let statuses = try setup.server.app.store.deliveries.attempts(contextKey: "trip:both").map(\.status).sorted()
        #expect(statuses == [200, 200, 200, 200, 400], "one BadDeviceToken, for the guess: \(statuses)")
        let tokens = try setup.server.app.store.tokens.activeTokens(userID: setup.userID)
        #expect(tokens.first { $0.token == unsaidStore }?.environment == .production, "the environment that took it is recorded")

        // The timeline and /metrics say which environment each delivery went to.
        let timeline = try setup.admin("GET", "/v1/contexts/trip:both/timeline")
        let deliveries = (timeline.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "delivery" }
        #expect(deliveries.filter { $0["environment"] as? String == "production" }.count == 2, "\(timeline.text)")
        #expect(deliveries.filter { $0["environment"] as? String == "sandbox" }.count == 3, "\(timeline.text)")
        let metrics = try setup.admin("GET", "/metrics").text
        #expect(metrics.contains(#"liveline_pushes_total{environment="production",reason="",status="200"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"liveline_pushes_total{environment="sandbox",reason="BadDeviceToken",status="400"} 1"#), "\(metrics)")

        // The app registers the learned token again on its next launch, still without an
        // environment: it stays the production one's, no guess in development is made again.
        let again = try setup.server.request(
            "POST", "/api/apns/register", token: setup.bearer,
            json: #"{"kind":"la-update","token":"\#(unsaidStore)","device_id":"phone-3","context_key":"trip:both"}"#)
        #expect(again.json?["environment"] as? String == "production" && again.json?["outcome"] as? String == "unchanged", "\(again.text)")
        let listed = try setup.server.request("GET", "/api/apns/register", token: setup.bearer)
        #expect(listed.text.contains(#""environmentSource":"learned""#), "\(listed.text)")
        #expect(try setup.server.app.store.tokens.activeTokens(userID: setup.userID).filter { $0.token == unsaidStore }.count == 1)

        // Push-to-start with a channel: one channel in each environment, each device started on its own.
        let debugStart = String(repeating: "e1", count: 32)
        let storeStart = String(repeating: "e2", count: 32)
        development.registerDevice(token: debugStart)
        production.registerDevice(token: storeStart)
        for (index, token, environment) in [(0, debugStart, "sandbox"), (1, storeStart, "production")] {
            let response = try setup.server.request(
                "POST", "/api/apns/register", token: setup.bearer,
                json:
                    #"{"kind":"la-pushToStart","token":"\#(token)","device_id":"starter-\#(index)","attributes_type":"TripLiveActivityAttributes","environment":"\#(environment)"}"#
            )
            #expect(response.status == 200, "\(response.text)")
        }
        #expect(try setup.admin("PUT", "/v1/contexts/trip:start", json: ContextAPITests.trip(delay: 1)).status == 201)
        let started = try setup.admin(
            "POST", "/v1/contexts/trip:start/start",
            json: #"{"deviceIds":["starter-0","starter-1"],"alert":{"title":"Your trip"},"useChannel":true}"#)
        let channels = try #require(started.json?["channelIds"] as? [String: String], "\(started.text)")
        #expect(development.channels() == [channels["sandbox"]] && production.channels() == [channels["production"]], "\(started.text)")
        #expect(await eventually { production.accepted(token: storeStart).count == 1 && development.accepted(token: debugStart).count == 1 })
        let startPayload = try #require(production.accepted(token: storeStart).first?.payload)
        let aps = (try JSONSerialization.jsonObject(with: Data(startPayload)) as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?["input-push-channel"] as? String == channels["production"])
    }
}
