import Foundation
import Liveline
import LivelineTransitModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineClient
import LivelineCrypto
import LivelineModel
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting

/// A real Liveline server for the SDK's tests: HTTP on a free port, SQLite in a temporary
/// folder, the in-process APNs sandbox; a user with a bearer token and an admin helper.
final class ClientTestServer: @unchecked Sendable {
    static let adminKey = "client-tests-admin-key-0123456789"
    let server: TestServer
    var folder: URL { server.folder }
    var app: Application { server.app }
    let bearer: String
    let userID: UserID
    let householdID: HouseholdID
    /// One URL session per server: tests in parallel never queue behind each other's connections.
    let session = URLSession(configuration: .ephemeral)

    init(clock: ManualClock? = nil) throws {
        // Live: the SDK reaches the server over HTTP (`URLSession`).
        server = try TestServer(.live, clock: clock) { configuration in
            configuration.adminKey = Self.adminKey
            configuration.minimumPushInterval = 0
        }
        sandbox = server.sandbox!
        let (user, token) = try server.addUser(household: "Fisch", name: "Dennis")
        (bearer, userID, householdID) = (token, user.id, user.householdID)
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(app.port)")! }
    /// The server's in-process APNs sandbox.
    let sandbox: APNSSandbox

    func client(
        deviceID: String? = "iphone-1", bearer: String? = nil, environment: PushEnvironment? = LivelineClient.buildEnvironment
    ) -> LivelineClient {
        LivelineClient(
            baseURL: baseURL, bearerToken: bearer ?? self.bearer, deviceID: deviceID, environment: environment, session: session, timeout: 10)
    }

    /// A request with the admin key (`/v1`).
    func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try server.admin(method, path, json: json)
    }

    static func trip(delay: Int, remaining: Int = 240) -> String {
        #"{"type":"TripLiveActivityAttributes","attributes":{"tripId":"t1","line":"S5","destination":"Flughafen"},"contentState":{"currentStop":"Hauptbahnhof","nextStop":"Messe","nextStopTime":803461320,"remainingTime":\#(remaining),"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}}"#
    }

    /// True once the outbox has nothing due or leased: everything the server meant to send went out.
    func outboxIsEmpty() throws -> Bool {
        let depth = try app.store.outbox.depth(now: Date().addingTimeInterval(3600))
        return depth.due == 0 && depth.leased == 0
    }

    func stop() { server.stop() }
}
