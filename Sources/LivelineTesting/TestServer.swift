import Foundation
import Liveline
import LivelineAPI
import LivelineCrypto
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport

/// A real Liveline server for a test, assembled as `liveline serve` assembles it: a temporary
/// data folder, SQLite (PostgreSQL with `LIVELINE_TEST_BACKEND=postgres`), the features, the APNs
/// the configuration names (without a key: an in-process sandbox), and requests answered
/// in-process or over HTTP on a free port (``Mode``). The one server harness of the tests, and of
/// a backend built on Liveline.
public final class TestServer: Sendable {
    public let mode: Mode
    public let folder: URL
    public let app: Application
    /// The in-process APNs sandbox, when the configuration has no APNs key.
    public let sandbox: APNSSandbox?
    /// The other environment's in-process sandbox, with `LIVELINE_SANDBOX_ENVIRONMENTS=both`.
    public let otherSandbox: APNSSandbox?

    /// A server reached as `mode` says (in-process by default) on `folder` (a new one by default;
    /// a stopped server's, to start it again), with `features` (the built-in ones by default), its
    /// times from `clock` when given (people's sign-ins too, unless `sessionsOnRealTime`: a demo's
    /// server runs faster than its people).
    public init(
        _ mode: Mode = .inProcess, folder: URL? = nil, features: [any Feature] = Assembly.features, clock: ManualClock? = nil,
        sessionsOnRealTime: Bool = false, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        self.mode = mode
        self.folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("liveline-test-\(UUID().uuidString)")
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = self.folder
        configuration.accessLog = "off"
        configuration.logLevel = .error  // the engine's events: only what went wrong for good
        configuration.databaseURL = try Self.databaseURL(of: self.folder)
        configuration.channelCreationWait = 30  // a loaded machine's sandbox, not a slow APNs
        configure(&configuration)
        TestLogs.collect(logSink: &configuration.logSink, accessLog: &configuration.accessLog, logLevel: &configuration.logLevel)
        let serverClock = clock?.function
        let realTime: @Sendable () -> Date = { Date() }
        let wallClock = sessionsOnRealTime ? realTime : serverClock ?? realTime
        let server = try Assembly.server(configuration, features: features, clock: serverClock, wallClock: wallClock)
        app = server.app
        sandbox = server.sandbox
        otherSandbox = server.otherSandbox
        try app.start(listening: mode == .live)
        TestLogs.recordServerSecrets(adminKey: app.adminKey, dataDirectory: configuration.dataDirectory)
    }

    /// The port a live server listens on; an in-process server has none.
    public var port: Int {
        get throws {
            guard mode == .live else { throw Self.notLive("port") }
            return app.port
        }
    }

    /// With PostgreSQL, the database of `folder`: a server started again on a folder finds the
    /// data its first start left (the URL is kept in the folder); nil with SQLite.
    public static func databaseURL(of folder: URL) throws -> String? {
        let file = folder.appendingPathComponent("test-database-url")
        if let kept = try? String(contentsOf: file, encoding: .utf8) { return kept }
        guard let url = try TestBackend.databaseURL() else { return nil }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(url.utf8).write(to: file)
        return url
    }

    /// Creates a user and returns it with its bearer token.
    public func addUser(household: String, name: String) throws -> (user: UserRecord, token: String) {
        let token = SecureRandom.token(prefix: "ll_")
        let user = try app.store.accounts.createUser(
            household: household, name: name, avatarTint: "azure", emoji: "🐟", locale: "de",
            tokenHash: SHA256.hex(token), now: Date()
        )
        return (user, token)
    }

    /// A new connection to a live server.
    public func connection() throws -> TestHTTPConnection {
        guard mode == .live else { throw Self.notLive("connection") }
        return try TestHTTPConnection(port: app.port)
    }

    /// One request, with `token` as bearer when given: in-process, or on a new connection.
    public func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil) throws -> TestHTTPConnection.Response {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try request(method, path, headers: headers, body: json.map { Array($0.utf8) })
    }

    /// One request with `headers` and `body` (sent as ``TestHTTPConnection/request(_:_:headers:body:)``
    /// sends them): in-process, or on a new connection.
    public func request(_ method: String, _ path: String, headers: [String: String], body: [UInt8]? = nil) throws -> TestHTTPConnection.Response {
        switch mode {
        case .inProcess: try respondInProcess(method, path, headers: headers, body: body)
        case .live: try connection().request(method, path, headers: headers, body: body)
        }
    }

    /// What a test asked of an in-process server that only a live one has.
    private static func notLive(_ what: String) -> TestServerError {
        TestServerError("an in-process TestServer has no \(what): make it with TestServer(.live) to reach it over HTTP")
    }

    /// One request with the admin key (the `/v1` API).
    public func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try request(method, path, token: app.adminKey, json: json)
    }

    /// Stops the server and, unless `keepData`, deletes the data folder.
    public func stop(keepData: Bool = false) {
        app.shutdown()
        if !keepData { try? FileManager.default.removeItem(at: folder) }
    }
}
