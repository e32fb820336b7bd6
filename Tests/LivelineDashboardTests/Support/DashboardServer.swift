import Foundation
import Liveline
import LivelineCrypto
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting

/// A real server for a dashboard test (``TestServer``) with a known admin key.
final class DashboardServer {
    static let adminKey = "dashboard-test-admin-key-0123456789"

    let server: TestServer
    var folder: URL { server.folder }
    var app: Application { server.app }
    var sandbox: APNSSandbox? { server.sandbox }
    /// The port of a live server.
    var port: Int { get throws { try server.port } }

    /// A server reached as `mode` says on `folder` (a new one by default; a stopped server's, to
    /// start it again), on `clock` when given (for its sessions too, unless `sessionsOnRealTime`).
    init(
        _ mode: TestServer.Mode = .inProcess, folder: URL? = nil, clock: ManualClock? = nil, sessionsOnRealTime: Bool = false,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        server = try TestServer(mode, folder: folder, clock: clock, sessionsOnRealTime: sessionsOnRealTime) { configuration in
            configuration.adminKey = Self.adminKey
            configure(&configuration)
        }
    }

    /// Stops the server and, unless `keepData`, deletes its folder.
    func stop(keepData: Bool = false) { server.stop(keepData: keepData) }

    /// A user and their bearer token.
    func addUser(household: String, name: String) throws -> (user: UserRecord, token: String) {
        try server.addUser(household: household, name: name)
    }

    /// One request: in-process, or on a new connection.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> TestHTTPConnection.Response {
        try server.request(method, path, headers: headers, body: body.map { Array($0.utf8) })
    }

    /// A `/v1` request with the admin key.
    func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try server.admin(method, path, json: json)
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
