import Foundation
import LivelineModel
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport

/// A server for an API test (``TestServer``) with a known admin key, fast retries, one user with a
/// bearer token, and the APNs sandbox its pushes reach (its in-process one, or an external one).
public final class APISetup {
    /// The admin key of every setup's server.
    public static let adminKey = "admin-key-for-tests-0123456789"

    /// An APNs sandbox of its own in `folder`, for a setup's `external` (its channel quota given).
    public static func externalSandbox(_ folder: URL, quota: Int = 10_000) throws -> APNSSandbox {
        var configuration = SandboxConfiguration(folder: folder.appendingPathComponent("sandbox"))
        configuration.channelQuota = quota
        return try APNSSandbox.start(configuration)
    }

    public let server: TestServer
    public let bearer: String
    public let userID: UserID
    /// The sandbox: the server's in-process one, or the `external` one it was pointed at.
    public let sandbox: APNSSandbox

    /// A server reached as `mode` says on `folder` (a new one when nil); with `external`, pushes go
    /// to that sandbox through the `LIVELINE_APNS_*` settings instead of an in-process one.
    public init(
        _ mode: TestServer.Mode = .inProcess, folder: URL? = nil, external: APNSSandbox? = nil, clock: ManualClock? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        server = try TestServer(mode, folder: folder, clock: clock) { configuration in
            if let external {
                configuration.apns.keyPath = external.keyFile.path
                configuration.apns.keyID = external.keyID
                configuration.apns.teamID = external.teamID
                configuration.apns.host = "127.0.0.1"
                configuration.apns.port = external.devicePort
                configuration.apns.managementPort = external.managementPort
                configuration.apns.caFile = external.certificateFile.path
            }
            configuration.adminKey = APISetup.adminKey
            configuration.pushRetry = RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100), maximumAttempts: 30)
            configure(&configuration)
        }
        sandbox = external ?? server.sandbox!
        // A new user each time (a restarted server on the same folder gets another one).
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis \(try server.app.store.accounts.users().count + 1)")
        self.bearer = bearer
        userID = user.id
    }

    public func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try server.admin(method, path, json: json)
    }

    /// A phone: registered with the sandbox, and through the API as an `la-update` token of `contextKey`.
    public func device(_ index: Int, contextKey: String, type: String) throws -> String {
        let token = String(format: "%064x", 0x5eed00 + index)
        sandbox.registerDevice(token: token)
        let response = try server.request(
            "POST", "/api/apns/register", token: bearer,
            json: """
                {"kind":"la-update","token":"\(token)","device_id":"phone-\(index)","context_key":"\(contextKey)","attributes_type":"\(type)"}
                """)
        guard response.status == 200 else { throw APISetupError("registering \(token) answered \(response.status): \(response.text)") }
        return token
    }

    /// A phone with a push-to-start token for `type` (registered with the sandbox and the API).
    public func startDevice(_ index: Int, type: String, bearer: String? = nil) throws -> String {
        let token = String(format: "%064x", 0x57a700 + index)
        sandbox.registerDevice(token: token)
        let body = #"{"kind":"la-pushToStart","token":"\#(token)","device_id":"phone-\#(index)","attributes_type":"\#(type)"}"#
        let response = try server.request("POST", "/api/apns/register", token: bearer ?? self.bearer, json: body)
        guard response.status == 200 else { throw APISetupError("registering \(token) answered \(response.status): \(response.text)") }
        return token
    }

    /// The `aps` dictionaries the sandbox accepted for `token`, in order.
    public func aps(_ token: String) -> [[String: Any]] {
        sandbox.accepted(token: token).compactMap { push in
            let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
            return json?["aps"] as? [String: Any]
        }
    }

    public func contentStates(_ token: String) -> [[String: Any]] {
        sandbox.accepted(token: token).compactMap { push in
            let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
            return (json?["aps"] as? [String: Any])?["content-state"] as? [String: Any]
        }
    }

    /// True once the outbox has nothing due or leased.
    public func outboxIsEmpty() throws -> Bool {
        let depth = try server.app.store.outbox.depth(now: Date().addingTimeInterval(3600))
        return depth.due == 0 && depth.leased == 0
    }

    /// True once the dispatcher has nothing to do now: no row leased (in flight: a push the
    /// sandbox holds is recorded only after that) and none due by the engine's clock. Rows due
    /// later may wait — a retry's backoff, or a second row for a state already pushed, held
    /// for the quiet-change debounce (30 s: `outboxIsEmpty()` would wait for it). With a manual
    /// clock that stands still, it is also the drain before showing that nothing was sent.
    public func dispatcherIsIdle() throws -> Bool {
        let depth = try server.app.store.outbox.depth(now: server.app.engine.configuration.clock())
        return depth.leased == 0 && depth.oldestDueAge == nil
    }

    public func stop(keepData: Bool = false) { server.stop(keepData: keepData) }
}

/// A step of a setup that failed (a registration the server refused).
public struct APISetupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
