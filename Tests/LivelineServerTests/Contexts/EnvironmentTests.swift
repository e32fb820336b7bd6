import Foundation
import LivelineCrypto
import LivelineModel
import LivelinePush
import LivelineSandbox
import LivelineServer
import LivelineTestSupport
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
            ]) { $1 }
        ).apns
        #expect(two.servesOtherEnvironment && two.otherEnvironment == .sandbox)
        #expect(two.apnsEnvironment.device.port == 2197 && two.otherAPNSEnvironment.device.description == "127.0.0.2:2297")
        #expect(!(try ServerConfiguration.fromEnvironment([:]).apns.servesOtherEnvironment), "the in-process sandbox: one environment")
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["LIVELINE_APNS_PRODUCTION_PORT": "0"]) }
    }

    @Test func eachDeviceGetsItsUpdatesThroughItsOwnEnvironment() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-environments-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let development = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("development")))
        defer { development.stop() }
        // The production server trusts the same key and shows the same certificate (one CA file).
        let productionFolder = folder.appendingPathComponent("production")
        try FileManager.default.createDirectory(at: productionFolder, withIntermediateDirectories: true)
        for name in ["cert.pem", "key.pem"] {
            try FileManager.default.copyItem(
                at: folder.appendingPathComponent("development").appendingPathComponent(name), to: productionFolder.appendingPathComponent(name))
        }
        var productionConfiguration = SandboxConfiguration(folder: productionFolder)
        productionConfiguration.environment = .production
        let production = try APNSSandbox.start(productionConfiguration)
        defer { production.stop() }
        production.addKey(development.signingKey.publicKey, keyID: development.keyID, teamID: development.teamID)

        let setup = try ContextAPITests.Setup(folder: folder.appendingPathComponent("data"), external: development) { configuration in
            configuration.apns.productionHost = "127.0.0.1"
            configuration.apns.productionPort = production.devicePort
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
    }
}
