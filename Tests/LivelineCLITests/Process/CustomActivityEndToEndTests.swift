import Foundation
import LivelineClient
import LivelineCrypto
import LivelineDevices
import LivelineModel
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app's own Live Activity on a stock `liveline` (the executable built beside the tests, not
/// rebuilt for it): `examples/custom-activity`'s food delivery, its contract loaded from a file
/// beside a broken one, another contract added through `/v1/contracts`, driven only through the
/// API; simulated iPhones that know the type only from its contract file, a fifth of the pushes
/// lost (`docs/contracts.md`, "Bring your own Live Activity").
@Suite struct CustomActivityEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let exported = root.appendingPathComponent("examples/custom-activity/contracts/DeliveryActivityAttributes.json")
    static let key = "delivery:A-1042"

    static func admin(_ port: Int, _ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try TestHTTPConnection(port: port).request(
            method, path, headers: ["Authorization": "Bearer \(CrashRecoveryTests.adminKey)"], body: json.map { Array($0.utf8) })
    }

    static func put(_ port: Int, status: String, courier: String?, eta: Double) throws -> Int {
        let state: JSONValue = .object([
            "status": .string(status), "eta": .double(eta), "courierName": courier.map(JSONValue.string) ?? .null,
            "items": .array([.object(["name": .string("Margherita"), "quantity": .int(2)])]),
        ])
        let body: JSONValue = .object([
            "type": "DeliveryActivityAttributes", "attributes": .object(["orderId": "A-1042", "restaurant": "Pizzeria Napoli"]),
            "contentState": state,
        ])
        return try admin(port, "PUT", "/v1/contexts/\(key)", json: String(decoding: body.compactJSON, as: UTF8.self)).status
    }

    /// The card of the delivery on the dashboard, as `Tests/LivelineDashboardTests/Browser/activity_card.py` reads it in
    /// headless chromium after signing in with the admin key: its views by name.
    static func dashboardCard(port: Int) throws -> [String: String] {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/install-deps.sh")
        }
        let python = root.appendingPathComponent(".venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: run scripts/test-venv.sh")
        let script = root.appendingPathComponent("Tests/LivelineDashboardTests/Browser/activity_card.py").path
        let artifacts = root.appendingPathComponent(".build/test-artifacts/custom-activity").path
        let run = try ChildProcess.run(
            python, [script, "http://127.0.0.1:\(port)", CrashRecoveryTests.adminKey, key, artifacts], timeout: 120)
        let output = String(decoding: run.output, as: UTF8.self)
        try #require(run.termination == .exited(0), "activity_card.py: \(output) \(String(decoding: run.errors, as: UTF8.self))")
        let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "activity_card.py printed no card: \(output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
    }

    @Test func aDeliveryFromItsContractFileIsStartedUpdatedPulledAndEndedOnPhonesThatKnowOnlyTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-delivery-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let contracts = folder.appendingPathComponent("contracts")
        try FileManager.default.createDirectory(at: contracts, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.exported, to: contracts.appendingPathComponent("DeliveryActivityAttributes.json"))
        try Data(#"{"format":"liveline-contract/1","type":"Broken""#.utf8).write(to: contracts.appendingPathComponent("broken.json"))
        let data = folder.appendingPathComponent("data")
        let bearer = try CrashRecoveryTests.user(in: data)
        let user = try #require(try Store.openSQLite(folder: data).accounts.users().first)
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let log = folder.appendingPathComponent("serve.log")
        let environment = CrashRecoveryTests.environment(sandbox).merging([
            "LIVELINE_CONTRACTS_DIR": contracts.path, "LIVELINE_PUSH_MIN_INTERVAL_MS": "0",
        ]) { $1 }
        let server = try ServeProcess(data: data, environment: environment, standardOutput: .file(log.path))
        defer { server.kill(SIGTERM) }
        let port = server.port

        // The good file is served, the broken one is logged by name and why.
        let listed = try Self.admin(port, "GET", "/v1/contracts").json?["contracts"] as? [[String: Any]] ?? []
        #expect(listed.contains { $0["type"] as? String == "DeliveryActivityAttributes" && $0["origin"] as? String == "file" }, "\(listed)")
        let logged = await eventually(timeout: 10) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("contract file broken.json is not loaded")
        }
        #expect(logged, "the log names the broken file: \(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000))")
        // Another app type, through the API, is served at once.
        let pickup = ContractFile(
            typeName: "PickupActivityAttributes", version: 1,
            schema: ContractSchema(attributes: [ContractField("shop", .string)], contentState: [ContractField("ready", .bool)]))
        #expect(
            try Self.admin(port, "PUT", "/v1/contracts/PickupActivityAttributes", json: String(decoding: pickup.json, as: UTF8.self)).status == 201)
        #expect(
            try Self.admin(
                port, "PUT", "/v1/contexts/pickup:1",
                json: #"{"type":"PickupActivityAttributes","attributes":{"shop":"Bio"},"contentState":{"ready":false}}"#
            ).status == 201)

        // Three phones whose app knows the delivery type only from the exported file.
        let file = try ContractFile.parse(Data(contentsOf: Self.exported))
        let registry = ContractRegistry(contracts: [AnyContract(file: file, origin: .file("DeliveryActivityAttributes.json"))])
        let fleet = DeviceFleet(sandbox: sandbox)
        defer { fleet.detach() }
        let session = URLSession(configuration: .ephemeral)
        var phones: [SimulatedDevice] = []
        for index in 0..<3 {
            let configuration = DeviceConfiguration(
                id: "phone-\(index)", userID: user.id.rawValue, householdID: user.householdID.rawValue, environment: .sandbox,
                activityTypes: ["DeliveryActivityAttributes"])
            let device = SimulatedDevice(
                configuration, contextKey: { _, attributes, _ in attributes.objectValue?["orderId"]?.stringValue.map { "delivery:\($0)" } },
                registry: registry)
            let client = LivelineClient(
                baseURL: URL(string: "http://127.0.0.1:\(port)")!, bearerToken: bearer, deviceID: device.id, session: session, timeout: 20)
            fleet.add(device, client: client)
            phones.append(device)
        }
        #expect(
            await eventually(timeout: 60) {
                await fleet.settle(timeout: 1)
                return phones.allSatisfy { phone in phone.log.filter { $0.message.hasPrefix("app registered its") }.count >= 2 }
            }, "every app registered its alert and push-to-start tokens")
        let installed = try Self.admin(port, "GET", "/v1/contracts/DeliveryActivityAttributes").json?["installed"] as? [[String: Any]]
        #expect(installed?.first?["version"] as? Int == 1 && installed?.first?["devices"] as? Int == 3, "\(installed ?? [])")

        // Push-to-start with the type: every phone shows the card and follows it.
        let eta = Date().timeIntervalSinceReferenceDate + 1800
        #expect(try Self.put(port, status: "preparing", courier: nil, eta: eta) == 201)
        let start = try Self.admin(
            port, "POST", "/v1/contexts/\(Self.key)/start", json: #"{"userIds":[\#(user.id.rawValue)],"alert":{"title":"Your order"}}"#)
        #expect(start.status == 200, "\(start.text)")
        #expect(
            await eventually(timeout: 30) {
                await fleet.settle(timeout: 1)
                return phones.allSatisfy { $0.activity(contextKey: Self.key)?.updateToken != nil }
            }, "every phone started the activity and registered its update token")

        // Thirty updates, a fifth of the pushes lost: every card equals the truth after its pull.
        fleet.setFaults(DeviceFaults(seed: 41, dropShare: 0.2))
        let statuses = ["preparing", "pickedUp", "nearby"]
        for step in 0..<30 {
            #expect(try Self.put(port, status: statuses[step % 3], courier: step.isMultiple(of: 2) ? "Sam" : nil, eta: eta + Double(step)) == 200)
        }
        let truth = try #require(try Self.admin(port, "GET", "/v1/contexts/\(Self.key)").json)
        let rev = try #require(truth["rev"] as? Int)
        let state = try JSONValue(json: JSONSerialization.data(withJSONObject: try #require(truth["contentState"])))
        // Sent: the last revision's push answered for each phone's token (and lost on the way to some).
        #expect(
            try await eventually(timeout: 30) {
                let entries = try Self.admin(port, "GET", "/v1/contexts/\(Self.key)/timeline?limit=500").json?["entries"] as? [[String: Any]] ?? []
                return entries.filter { $0["kind"] as? String == "delivery" && $0["rev"] as? Int == rev && $0["status"] as? Int == 200 }.count >= 3
            }, "the last revision was pushed to every phone")
        await fleet.settle()
        fleet.setFaults(.none)
        for phone in phones { fleet.foreground(device: phone.id) }
        #expect(await fleet.settle())
        for phone in phones {
            #expect(phone.activity(contextKey: Self.key)?.contentState == state, "\(phone.id): \(phone.log.suffix(5).map(\.message))")
        }
        let lost = phones.flatMap(\.log).filter { $0.message.contains("lost on the way") }.count
        #expect(lost > 0, "the fault dropped pushes")
        // A pull at the current revision is answered unchanged.
        let client = LivelineClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, bearerToken: bearer, deviceID: "phone-0", session: session)
        guard case .unchanged(let same) = try await client.pull(contextKey: Self.key, sinceRev: rev) else {
            Issue.record("a pull at the current revision was not answered unchanged")
            return
        }
        #expect(same == rev)
        // The timeline shows the revisions and the pushes.
        let timeline = try Self.admin(port, "GET", "/v1/contexts/\(Self.key)/timeline?limit=500").json?["entries"] as? [[String: Any]] ?? []
        #expect(timeline.filter { $0["kind"] as? String == "revision" }.count >= 31)
        #expect(timeline.contains { $0["kind"] as? String == "delivery" && $0["status"] as? Int == 200 })

        // The dashboard draws the card from the contract file's template, in a browser.
        let card = try Self.dashboardCard(port: port)
        let lastStatus = state.objectValue?["status"]?.stringValue ?? "?"
        #expect(card["lock-screen"]?.contains("🛵 Pizzeria Napoli: \(lastStatus)") == true, "\(card)")
        #expect(card["expanded"]?.contains("order A-1042") == true, "\(card)")

        // The end: every card ends with the final state.
        #expect(try Self.put(port, status: "delivered", courier: "Sam", eta: eta) == 200)
        #expect(try Self.admin(port, "POST", "/v1/contexts/\(Self.key)/end").status == 200)
        #expect(
            await eventually(timeout: 30) {
                await fleet.settle(timeout: 1)
                return phones.allSatisfy { phone in
                    phone.activities.contains {
                        $0.contextKey == Self.key && $0.state == .ended && $0.contentState.objectValue?["status"] == "delivered"
                    }
                }
            }, "every phone ended the card on the delivered state")
    }
}
