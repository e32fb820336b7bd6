import Foundation
import Liveline
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
            DeviceConfiguration(id: "early-phone", userID: user.id.rawValue, householdID: user.householdID.rawValue, environment: .sandbox),
            registry: .builtIn)
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
        // What the update token's registration sends goes out before the faults: a push still on
        // its way would take the seed's first draw.
        let outbox = harness.app.store.outbox
        func sent() -> Bool { (try? outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false }
        #expect(await harness.until(timeout: 30) { sent() })

        harness.fleet.setFaults(DeviceFaults(seed: 77, dropShare: 0.4, reorderWindow: 2))
        // Twelve revisions, twelve pushes: each one sent before the next is made. Revisions made
        // faster than the dispatcher sends are one push (the latest state), and how many pushes a
        // burst makes depends on the machine's load; with fewer, the seed's draws may leave fewer
        // than two pushes to hold and reorder. Waited for without settling the fleet, which would
        // deliver what is held back and draw from the seed for it.
        let before = harness.sandbox.acceptedCount
        for delay in 1...12 {
            try harness.put("faults", delay: delay)
            #expect(await eventually(timeout: 30) { sent() }, "the push of revision \(delay) was sent")
        }
        #expect(harness.sandbox.acceptedCount - before == 12, "one push per revision: \(harness.sandbox.acceptedCount - before)")
        await harness.fleet.settle()
        let messages = phone.log.map(\.message)
        // The seed's draws on twelve pushes, the same on every run: one lost; of the eleven left,
        // pairs delivered out of order, the last one held until the fleet settles.
        let lost = messages.filter { $0.contains("lost on the way (network fault: drop share 0.4, seed 77): push ") }.count
        let held = messages.filter { $0.contains("held back (network fault: reorder window 2, seed 77)") }.count
        let reordered = messages.filter { $0.contains("delivered out of order (network fault: seed 77)") }.count
        print("seed 77 on 12 pushes: \(lost) lost, \(held) held back, \(reordered) pairs delivered out of order")
        #expect((lost, held, reordered) == (1, 6, 5), "\(messages)")

        harness.fleet.setFaults(DeviceFaults(seed: 78, delay: .milliseconds(20)))
        try harness.put("faults", delay: 20)
        #expect(
            await harness.until { phone.log.contains { $0.message.contains("delayed 0.02 seconds (network fault: seed 78)") } },
            "\(phone.log.map(\.message).suffix(5))")
    }
}
