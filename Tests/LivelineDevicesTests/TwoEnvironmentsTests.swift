import Foundation
import LivelineDevices
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineTestSupport
import Testing

/// A fleet attached to a development and a production sandbox (`APNSSandbox.startBoth`): a
/// debug build's tokens live in the development one, an App Store build's in the production one,
/// and each device hears only from the sandbox of its environment — over real HTTP/2 + TLS.
@Suite struct TwoEnvironmentsTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("liveline-devices-both-\(UUID().uuidString)")
    }

    static func alert(_ title: String, to token: String, bundleID: String) -> APNSNotification {
        APNSNotification(
            deviceToken: token, pushType: .alert, topic: APNSPushType.alert.topic(bundleID: bundleID),
            payload: Array(#"{"aps":{"alert":{"title":"\#(title)"}}}"#.utf8))
    }

    @Test func eachDeviceIsRegisteredInAndHearsFromTheSandboxOfItsEnvironment() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Accepting any token, each sandbox takes a push to the other's devices too: the fleet must
        // not hand it to them.
        let pair = try APNSSandbox.startBoth(SandboxConfiguration(folder: folder, acceptAnyToken: true))
        defer { pair.stop() }
        let fleet = DeviceFleet(development: pair.development, production: pair.production)
        defer { fleet.detach() }
        #expect(fleet.sandbox === pair.development && fleet.sandbox(for: .production) === pair.production)
        let debug = SimulatedDevice(DeviceConfiguration(id: "debug-build", userID: 1, householdID: 1, environment: .sandbox), registry: .builtIn)
        let store = SimulatedDevice(
            DeviceConfiguration(id: "app-store-build", userID: 1, householdID: 1, environment: .production), registry: .builtIn)
        fleet.add(debug, client: nil)
        fleet.add(store, client: nil)

        #expect(debug.tokens.count > 1 && store.tokens.count > 1, "an alert token and push-to-start tokens each")
        for token in debug.tokens {
            #expect(pair.development.isActive(token: token) && !pair.production.isActive(token: token))
        }
        for token in store.tokens {
            #expect(pair.production.isActive(token: token) && !pair.development.isActive(token: token))
        }

        let clients = try pair.sandboxes.map { sandbox in
            try APNSClient(
                configuration: APNSClientConfiguration(
                    credentials: APNSCredentials(keyFile: pair.development.keyFile, keyID: sandbox.keyID, teamID: sandbox.teamID),
                    environment: .local(
                        devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: pair.development.certificateFile.path)
                ))
        }
        defer { for client in clients { client.shutdown() } }
        let (development, production) = (clients[0], clients[1])
        let bundle = pair.development.bundleID
        // Through the wrong environment first: accepted, but never delivered.
        #expect(await development.send(Self.alert("wrong door", to: store.alertToken, bundleID: bundle)).status == 200)
        #expect(await production.send(Self.alert("wrong door", to: debug.alertToken, bundleID: bundle)).status == 200)
        #expect(await production.send(Self.alert("store door", to: store.alertToken, bundleID: bundle)).status == 200)
        #expect(await development.send(Self.alert("debug door", to: debug.alertToken, bundleID: bundle)).status == 200)
        #expect(pair.development.acceptedCount == 2 && pair.production.acceptedCount == 2)

        // A sandbox hands what it accepts to the fleet before it answers, so the deliveries are
        // under way; settle waits for them.
        #expect(await fleet.settle())
        #expect(
            await eventually { store.logged("applied: alert shown: store door") && debug.logged("applied: alert shown: debug door") },
            "\(store.messages()) \(debug.messages())")
        #expect(!store.logged("wrong door") && !debug.logged("wrong door"), "\(store.messages()) \(debug.messages())")
    }

    @Test func aServerReachesADebugAndAnAppStoreBuildEachThroughItsOwnSandbox() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pair = try APNSSandbox.startBoth(SandboxConfiguration(folder: folder))
        defer { pair.stop() }
        let harness = try DeviceHarness(both: pair)
        defer { harness.stop() }
        #expect(harness.app.engine.configuration.environments == [.sandbox, .production])
        let debug = await harness.phone("debug-build")
        let store = await harness.phone("app-store-build", environment: .production)

        try harness.put("both", delay: 1)
        #expect(try harness.start("both") == ["queued", "queued"])
        #expect(
            await harness.until {
                debug.activity(contextKey: "trip:both")?.updateToken != nil && store.activity(contextKey: "trip:both")?.updateToken != nil
            })
        try harness.put("both", delay: 4)
        #expect(
            await harness.until {
                [debug, store].allSatisfy { $0.activity(contextKey: "trip:both")?.contentState.objectValue?["delay"] == .int(4) }
            })
        #expect(await harness.until { harness.outboxIsEmpty })

        // Every push of each phone went through its own environment's sandbox, none through the other.
        let debugStart = try #require(debug.startTokens["TripLiveActivityAttributes"])
        let storeStart = try #require(store.startTokens["TripLiveActivityAttributes"])
        let debugUpdate = try #require(debug.activity(contextKey: "trip:both")?.updateToken)
        let storeUpdate = try #require(store.activity(contextKey: "trip:both")?.updateToken)
        #expect(pair.development.accepted(token: debugStart).count == 1 && pair.production.accepted(token: storeStart).count == 1)
        #expect(!pair.development.accepted(token: debugUpdate).isEmpty && !pair.production.accepted(token: storeUpdate).isEmpty)
        for token in debug.tokens {
            #expect(pair.production.accepted(token: token).isEmpty && !pair.production.isActive(token: token))
        }
        for token in store.tokens {
            #expect(pair.development.accepted(token: token).isEmpty && !pair.development.isActive(token: token))
        }
    }
}
