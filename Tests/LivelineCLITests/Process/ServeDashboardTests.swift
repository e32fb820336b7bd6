import Foundation
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// `liveline serve` on its embedded defaults, as a new user starts it: it says where the
/// dashboard is, the dashboard signs in with the admin key, a token registered with the server is
/// pushed to by the in-process sandbox and stays active — and no log line holds the admin key.
@Suite struct ServeDashboardTests {
    @Test func aFirstStartPrintsTheDashboardAndItsLogsNeverHoldTheAdminKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-serve-dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        let logFile = folder.appendingPathComponent("stdout.jsonl")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // No APNs key and no admin key: the embedded default, a key generated on this first start.
        let server = try ServeProcess(
            data: data, environment: ["LIVELINE_ACCESS_LOG": "stdout", "LIVELINE_LOG_LEVEL": "debug"], standardOutput: .file(logFile.path))
        #expect(server.startText.contains("dashboard: http://127.0.0.1:\(server.port)/dashboard/ (sign in with the admin key)"))
        #expect(server.startText.contains("in-process APNs sandbox"))
        let adminKey = try String(contentsOf: data.appendingPathComponent("admin-key"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(server.startText.contains(adminKey), "the first start shows the generated key once, to the person")
        // What the first start made is its owner's only: the folder 0700, the secrets and the database 0600.
        func mode(_ path: String) throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) }
        #expect(try mode(data.path) == 0o700)
        for file in ["admin-key", "liveline.sqlite", "webpush-vapid-key.pem", "apns-sandbox/key.pem"] {
            #expect(try mode(data.appendingPathComponent(file).path) == 0o600, "\(file)")
        }

        func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> TestHTTPConnection.Response {
            try TestHTTPConnection(port: server.port).request(method, path, headers: headers, body: body.map { Array($0.utf8) })
        }
        // A wrong key, then the right one, through the form.
        func signIn(_ key: String) throws -> TestHTTPConnection.Response {
            let form = try request("GET", "/dashboard/sign-in")
            let cookie = try #require(form.setCookies.first).split(separator: ";")[0]
            let token = try #require(form.text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1
            let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return try request(
                "POST", "/dashboard/sign-in", headers: ["Cookie": String(cookie), "Content-Type": "application/x-www-form-urlencoded"],
                body: "csrf=\(token)&key=\(encoded)")
        }
        #expect(try signIn("wrong-key-0123456789").status == 401)
        let signedIn = try signIn(adminKey)
        #expect(signedIn.status == 303)
        let session = try #require(signedIn.setCookies.first { $0.hasPrefix("liveline_session=") }).split(separator: ";")[0]

        // A household's phone registers its update token; the context changes; the sandbox takes it.
        let users = try ChildProcess.run(
            ServeProcess.executable.path,
            ["users", "add", "--data", data.path, "--household", "Fisch", "--name", "Dennis", "--tint", "azure", "--emoji", "x"])
        let bearer = try #require(String(decoding: users.output, as: UTF8.self).firstMatch(of: /"token":"([^"]+)"/)).1
        let token = String(repeating: "ab", count: 32)
        let registered = try request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            body:
                #"{"kind":"la-update","token":"\#(token)","device_id":"iphone","context_key":"trip:1","attributes_type":"TripLiveActivityAttributes"}"#
        )
        #expect(registered.status == 200)
        let put = try request(
            "PUT", "/v1/contexts/trip:1", headers: ["Authorization": "Bearer \(adminKey)"],
            body: """
                {"type":"TripLiveActivityAttributes","attributes":{"tripId":"1","line":"S5","destination":"Flughafen"},
                "contentState":{"currentStop":"Hbf","nextStop":"Messe","nextStopTime":803461320,"remainingTime":240,"delay":0,
                "occupancy":"low","phase":"inProgress","progress":0.4}}
                """)
        #expect(put.status == 201)
        var page = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            page = try request("GET", "/dashboard/activities/trip:1", headers: ["Cookie": String(session)]).text
            if page.contains(#"<span class="status-ok">200</span>"#) { break }
            usleep(50_000)
        }
        #expect(page.contains(#"<span class="status-ok">200</span>"#), "the push was accepted and shown")
        #expect(page.contains("<code>abababab…</code> active"), "the token stays active")
        for path in ["/dashboard", "/dashboard/devices", "/dashboard/feeds", "/dashboard/check"] {
            #expect(try request("GET", path, headers: ["Cookie": String(session)]).status == 200)
        }
        server.kill(SIGTERM)

        let logs = try String(contentsOf: logFile, encoding: .utf8)
        #expect(logs.contains(#""event":"dashboardSignInRefused""#))
        #expect(logs.contains(#""event":"dashboardSignedIn""#))
        #expect(logs.contains(#""path":"/dashboard/activities/trip:1""#), "the access log has the pages")
        #expect(!logs.contains(adminKey), "a log line holds the admin key")
        #expect(!logs.contains(token), "a log line holds the push token")
        #expect(!logs.contains(String(session.split(separator: "=")[1])), "a log line holds the session cookie")
        let rest = server.remainingOutput()
        #expect(rest.components(separatedBy: adminKey).count == 2, "standard error shows the key once, at the first start")
    }
}
