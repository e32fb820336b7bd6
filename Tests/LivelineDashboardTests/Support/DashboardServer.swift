import Foundation
import Liveline
import LivelineCrypto
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport

/// A real server for a dashboard test, assembled as `liveline serve` assembles it (a temporary
/// data folder, HTTP on a free port, the features, the in-process APNs sandbox), with a known
/// admin key.
final class DashboardServer {
    static let adminKey = "dashboard-test-admin-key-0123456789"

    let folder: URL
    let app: Application
    let sandbox: APNSSandbox?

    /// A server on `folder` (a new one by default; a stopped server's, to start it again: with
    /// PostgreSQL its database URL is kept there), on `clock` when given (for its sessions too,
    /// unless `sessionsOnRealTime`: a demo's server runs faster than its people).
    init(
        folder: URL? = nil, clock: ManualClock? = nil, sessionsOnRealTime: Bool = false, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        let folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("liveline-dashboard-\(UUID().uuidString)")
        self.folder = folder
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = folder
        configuration.accessLog = "off"
        configuration.logLevel = .error
        configuration.adminKey = Self.adminKey
        configuration.databaseURL = try Self.databaseURL(of: folder)
        configure(&configuration)
        TestLogs.collect(logSink: &configuration.logSink, accessLog: &configuration.accessLog, logLevel: &configuration.logLevel)
        let server: Assembly.Server
        if let clock {
            let serverClock = clock.function
            let wallClock: @Sendable () -> Date
            if sessionsOnRealTime { wallClock = { Date() } } else { wallClock = serverClock }
            server = try Assembly.server(configuration, clock: serverClock, wallClock: wallClock)
        } else {
            server = try Assembly.server(configuration)
        }
        app = server.app
        sandbox = server.sandbox
        try app.start()
        TestLogs.recordServerSecrets(adminKey: app.adminKey, dataDirectory: configuration.dataDirectory)
    }

    var port: Int { app.port }

    /// With PostgreSQL, the database of `folder` (kept in it, so a server started again on the
    /// folder finds its data); nil with SQLite.
    static func databaseURL(of folder: URL) throws -> String? {
        let file = folder.appendingPathComponent("test-database-url")
        if let kept = try? String(contentsOf: file, encoding: .utf8) { return kept }
        guard let url = try TestBackend.databaseURL() else { return nil }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(url.utf8).write(to: file)
        return url
    }

    /// Stops the server and, unless `keepData`, deletes its folder.
    func stop(keepData: Bool = false) {
        app.shutdown()
        if !keepData { try? FileManager.default.removeItem(at: folder) }
    }

    /// A user and their bearer token.
    func addUser(household: String, name: String) throws -> (user: UserRecord, token: String) {
        let token = SecureRandom.token(prefix: "ll_")
        let user = try app.store.accounts.createUser(
            household: household, name: name, avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(token), now: Date())
        return (user, token)
    }

    /// One request on a new connection.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> TestHTTPConnection.Response {
        try TestHTTPConnection(port: port).request(method, path, headers: headers, body: body.map { Array($0.utf8) })
    }

    /// A `/v1` request with the admin key.
    func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try request(method, path, headers: ["Authorization": "Bearer \(Self.adminKey)"], body: json)
    }

    /// Puts a trip context through `/v1` (its state names `stop` as the current stop).
    @discardableResult
    func putTrip(_ key: String, stop: String, delay: Int = 0) throws -> TestHTTPConnection.Response {
        try admin(
            "PUT", "/v1/contexts/\(key)",
            json: """
                {"type":"TripLiveActivityAttributes","attributes":{"tripId":"42","line":"S5","destination":"Flughafen"},
                "contentState":{"currentStop":"\(stop)","nextStop":"Messe","nextStopTime":803461320,"remainingTime":240,
                "delay":\(delay),"occupancy":"low","phase":"inProgress","progress":0.4}}
                """)
    }
}

/// A person's browser, without the browser: it keeps the dashboard's cookies and reads the CSRF
/// tokens of the pages it was shown.
final class DashboardVisitor {
    let server: DashboardServer
    var cookies: [String: String] = [:]

    init(_ server: DashboardServer) { self.server = server }

    var cookieHeader: String { cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }

    /// A request with the cookies; keeps what `Set-Cookie` sets (a `Max-Age=0` removes).
    @discardableResult
    func request(_ method: String, _ path: String, form: [String: String]? = nil) throws -> TestHTTPConnection.Response {
        var headers: [String: String] = [:]
        if !cookies.isEmpty { headers["Cookie"] = cookieHeader }
        var body: String?
        if let form {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Self.encode(form)
        }
        let response = try server.request(method, path, headers: headers, body: body)
        for header in response.setCookies {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            if header.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = pair.count > 1 ? String(pair[1]) : "" }
        }
        return response
    }

    func get(_ path: String) throws -> TestHTTPConnection.Response { try request("GET", path) }

    /// The value of the first `name="csrf"` field of a page.
    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: #"name="csrf" value=""#) else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in with `key` through the sign-in form; returns the form's answer.
    @discardableResult
    func signIn(key: String = DashboardServer.adminKey) throws -> TestHTTPConnection.Response {
        let form = try get("/dashboard/sign-in")
        let token = Self.csrf(in: form.text) ?? ""
        return try request("POST", "/dashboard/sign-in", form: ["csrf": token, "key": key])
    }

    static func encode(_ form: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.sorted { $0.key < $1.key }.map {
            "\($0.key.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }
}
