import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineShoppingModel
import LivelineTestSupport
import Testing

/// The dashboard in a real browser: `Browser/dashboard_browser.py` (PyPI selenium driving Debian's
/// headless chromium through chromium-driver, and axe-core for the accessibility check) against a
/// real server with three activities, a phone whose pushes the in-process APNs sandbox accepted,
/// the demo feed, and an app's own contract in two versions with the phones built with each. The
/// script signs in, follows an activity while it changes, tries a wrong key and a form without its
/// CSRF token, counts an app's own contract's devices by version on the contracts page, checks
/// every page with axe-core and writes a screenshot of each page into the artifacts folder
/// (`.build/test-artifacts/dashboard`, or `$LIVELINE_TEST_ARTIFACTS`). Fails, never skips, without
/// chromium, chromium-driver or the test virtualenv (`scripts/install-deps.sh`,
/// `scripts/test-venv.sh`).
@Suite struct DashboardBrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("Tests/LivelineDashboardTests/Browser/dashboard_browser.py")
    /// The screenshots the script writes, one per page.
    static let screenshots = ["sign-in", "overview", "activity", "devices", "contracts", "check", "feeds"]
    static let token = "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899"
    static let shoppingToken = "5566778899aabbccddeeff00112233445566778899aabbccddeeff0011223344"

    static var artifacts: URL {
        if let folder = ProcessInfo.processInfo.environment["LIVELINE_TEST_ARTIFACTS"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        return root.appendingPathComponent(".build/test-artifacts/dashboard")
    }

    /// The browser, its driver and the virtualenv's packages are there; else the test fails saying
    /// what to run.
    static func requireTools() throws -> String {
        for (tool, package) in [("/usr/bin/chromium", "chromium"), ("/usr/bin/chromedriver", "chromium-driver")] {
            try #require(
                FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/install-deps.sh (installs \(package))")
        }
        let python = root.appendingPathComponent(".venv/bin/python").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: run scripts/test-venv.sh (creates .venv with selenium)")
        let imports = try ChildProcess.run(
            python, ["-c", "import importlib.util, selenium; assert importlib.util.find_spec('axe_playwright_python')"], timeout: 30)
        try #require(
            imports.termination == .exited(0),
            ".venv lacks selenium or axe-playwright-python: run scripts/test-venv.sh (\(String(decoding: imports.errors, as: UTF8.self)))")
        return python
    }

    /// A `/v1` context of `contract`'s example attributes and content state (the engine sets `rev`).
    static func example<Contract: LiveActivityContract>(_ contract: Contract.Type) throws -> String {
        var state = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Contract.exampleContentState)) as? [String: Any])
        state.removeValue(forKey: "rev")
        let attributes = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Contract.example))
        let body: [String: Any] = ["type": Contract.typeName, "attributes": attributes, "contentState": state]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test func aPersonSignsInFollowsAnActivityLiveIsRefusedWithoutTheKeyOrTokenAndEveryPagePassesAxe() async throws {
        let python = try Self.requireTools()
        // A browser: it reaches the server over HTTP.
        let server = try DashboardServer(.live)
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")

        // A trip followed by a phone whose pushes the in-process sandbox accepts (deliveries of
        // 200 in the timeline), a shopping list and a meal-planning session.
        #expect(try server.putTrip("trip:s5", stop: "Hauptbahnhof").status == 201)
        for (token, device, key, type) in [
            (Self.token, "iphone-dennis", "trip:s5", "TripLiveActivityAttributes"),
            (Self.shoppingToken, "ipad-kitchen", "shopping:ext:week", "ShoppingActivityAttributes"),
        ] {
            let registered = try server.request(
                "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
                body: #"{"kind":"la-update","token":"\#(token)","device_id":"\#(device)","context_key":"\#(key)","attributes_type":"\#(type)"}"#)
            #expect(registered.status == 200 || registered.status == 201, "\(registered.text)")
        }
        #expect(try server.putTrip("trip:s5", stop: "Hauptbahnhof", delay: 2).status == 200)
        let shopping = try server.admin("PUT", "/v1/contexts/shopping:ext:week", json: try Self.example(ShoppingActivityAttributes.self))
        #expect(shopping.status == 201, "\(shopping.text)")
        let cooking = try server.admin("PUT", "/v1/contexts/cooksuggest:ext:tonight", json: try Self.example(CookSuggestActivityAttributes.self))
        #expect(cooking.status == 201, "\(cooking.text)")
        let delivered = try await eventually { try server.app.store.deliveries.lastDeliveredRev(contextKey: "trip:s5") == 2 }
        #expect(delivered, "the sandbox did not accept the trip's rev 2")
        // An app's own contract in two versions, and the phones of apps built with each (or not
        // saying): what the contracts page counts.
        for file in [DeliveryContract.v1, DeliveryContract.v2] {
            let put = try server.admin("PUT", "/v1/contracts/\(DeliveryContract.typeName)", json: DeliveryContract.text(file))
            #expect(put.status == 201, "\(put.text)")
        }
        for (index, fingerprint) in [
            (1, DeliveryContract.v1.fingerprint), (2, DeliveryContract.v1.fingerprint), (3, DeliveryContract.v2.fingerprint), (4, nil),
        ] {
            let status = try DeliveryContract.registerPhone(index, on: server, bearer: bearer, fingerprint: fingerprint)
            #expect(status == 200 || status == 201, "phone \(index): \(status)")
        }

        let artifacts = Self.artifacts
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        for name in Self.screenshots { try? FileManager.default.removeItem(at: artifacts.appendingPathComponent("\(name).png")) }

        let started = Date()
        let (port, script, folder) = (try server.port, Self.script.path, artifacts.path)
        let run = try await offThePool {
            try ChildProcess.run(
                python,
                [
                    script, "http://127.0.0.1:\(port)", DashboardServer.adminKey, folder, "--trip", "trip:s5", "--listed", "shopping:ext:week",
                    "--listed", "cooksuggest:ext:tonight", "--contract", DeliveryContract.typeName,
                ], timeout: 150)
        }
        let output = String(decoding: run.output, as: UTF8.self)
        let errors = String(decoding: run.errors, as: UTF8.self)
        #expect(run.termination == .exited(0), "dashboard_browser.py \(run.termination):\n\(output)\n\(errors.suffix(4000))")
        print("dashboard_browser.py took \(String(format: "%.1f", Date().timeIntervalSince(started))) s:\n\(output)")

        // What the browser did is what the server has: its PUT made rev 3, the refused form none.
        #expect(try server.app.engine.context(key: "trip:s5")?.rev == 3)
        for name in Self.screenshots {
            let file = artifacts.appendingPathComponent("\(name).png")
            let data = try #require(FileManager.default.contents(atPath: file.path), "no screenshot \(file.path)")
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(file.path) is not a PNG")
            #expect(data.count > 10_000, "\(file.path) is suspiciously small")
        }
    }
}
