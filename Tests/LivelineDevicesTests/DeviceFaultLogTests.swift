import Foundation
import LivelineCLI
import LivelineClient
import LivelineCrypto
import LivelineDevices
import LivelineModel
import LivelineServer
import LivelineStore
import LivelineTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the simulated iPhones say about the faults they live with (`docs/devices.md`): an app that
/// cannot reach the server retries its registration and logs each try; every push the network
/// fault loses, holds back, reorders or delays is logged with the fault and its seed.
@Suite struct DeviceFaultLogTests {
    @Test func anAppThatCannotReachTheServerRetriesItsRegistrationAndLogsEachTry() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-retry-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A port nobody can take meanwhile (held, never listening: connections are refused), and
        // that no server another test starts on port 0 gets either.
        let dead = try DeadPort.outsideEphemeralRange()
        let port = dead.port
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.dataDirectory = folder
        configuration.accessLog = "off"
        configuration.logLevel = .error
        configuration.databaseURL = try TestBackend.databaseURL()
        // Built, but not listening yet: the phone's app starts first.
        TestLogs.collect(logSink: &configuration.logSink, accessLog: &configuration.accessLog, logLevel: &configuration.logLevel)
        let server = try Assembly.server(configuration)
        defer { server.app.shutdown() }
        let bearer = SecureRandom.token(prefix: "ll_")
        let user = try server.app.store.accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(bearer), now: Date())
        let fleet = DeviceFleet(sandbox: try #require(server.sandbox))
        defer { fleet.detach() }
        let device = SimulatedDevice(
            DeviceConfiguration(id: "early-phone", userID: user.id.rawValue, householdID: user.householdID.rawValue, environment: .sandbox))
        let client = LivelineClient(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, bearerToken: bearer, deviceID: "early-phone",
            session: URLSession(configuration: .ephemeral),
            timeout: 5)
        fleet.add(device, client: client)
        // (A loaded machine may run the app's first try late: waited for, not timed.)
        let failedFirst = await eventually(timeout: 90) {
            device.log.contains { $0.message.contains("failed (try 1 of \(DeviceFleet.registrationTries))") }
        }
        #expect(failedFirst, "\(device.log.map(\.message))")
        dead.close()
        try server.app.start()
        TestLogs.recordServerSecrets(adminKey: server.app.adminKey, dataDirectory: configuration.dataDirectory)
        #expect(
            await eventually(timeout: 60) { device.log.contains { $0.message.hasPrefix("app registered its alert token") } },
            "\(device.log.map(\.message))")
        #expect(await eventually { (try? server.app.store.tokens.activeTokens(userID: user.id).count) == 1 + device.startTokens.count })
        #expect(device.log.contains { $0.message.contains("trying again in") })
    }

    @Test func everyPushTheNetworkLosesHoldsBackOrDelaysIsLoggedWithTheFaultAndTheSeed() async throws {
        let harness = try DeviceHarness { $0.quietChangeDebounce = 0 }
        defer { harness.stop() }
        var rules = DeviceRules()
        rules.priorityBudget = 1000
        let phone = await harness.phone("phone", rules: rules)
        try harness.put("faults", delay: 0)
        #expect(Set(try harness.start("faults")) == ["queued"])
        #expect(await harness.until { phone.activity(contextKey: "trip:faults")?.updateToken != nil })

        harness.fleet.setFaults(DeviceFaults(seed: 77, dropShare: 0.4, reorderWindow: 2))
        for delay in 1...12 { try harness.put("faults", delay: delay) }
        #expect(
            await harness.until(timeout: 30) {
                (try? harness.app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
            })
        await harness.fleet.settle()
        let messages = phone.log.map(\.message)
        #expect(messages.contains { $0.contains("lost on the way (network fault: drop share 0.4, seed 77): push ") }, "\(messages)")
        #expect(messages.contains { $0.contains("held back (network fault: reorder window 2, seed 77)") }, "\(messages)")
        #expect(messages.contains { $0.contains("delivered out of order (network fault: seed 77)") }, "\(messages)")

        harness.fleet.setFaults(DeviceFaults(seed: 78, delay: .milliseconds(20)))
        try harness.put("faults", delay: 20)
        #expect(
            await harness.until { phone.log.contains { $0.message.contains("delayed 0.02 seconds (network fault: seed 78)") } },
            "\(phone.log.map(\.message).suffix(5))")
    }
}
