import Foundation
import Liveline
import LivelineTransitModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineApps
import LivelineClient
import LivelineCrypto
import LivelineDevices
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

/// A server, its in-process APNs sandbox and a fleet of simulated iPhones on a manual clock:
/// every push travels server → APNs client → sandbox (HTTP/2 + TLS) → device.
final class DeviceHarness: @unchecked Sendable {
    static let adminKey = "devices-tests-admin-key-0123456789"
    let server: TestServer
    var folder: URL { server.folder }
    var app: Application { server.app }
    /// The server's in-process APNs sandbox, which the fleet's devices are attached to (with
    /// `both`, the development one of the pair).
    let sandbox: APNSSandbox
    let fleet: DeviceFleet
    let clock = ManualClock()
    let bearer: String
    let userID: UserID
    let householdID: HouseholdID
    /// One URL session per harness: tests in parallel never queue behind each other's connections.
    let session = URLSession(configuration: .ephemeral)

    /// With `serverOnClock`, the server runs on the manual clock too (presence timeouts, push
    /// timestamps); else it runs on real time and only the devices' clock is moved by hand. With
    /// `both`, the server pushes to that pair of sandboxes with their one key, as a server with a
    /// key reaches Apple's two environments (development the default), and each device is
    /// attached to the sandbox of its environment.
    init(
        faults: DeviceFaults = .none, serverOnClock: Bool = false, both: SandboxPair? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        // Live: the phones' apps reach the server over HTTP (`URLSession`).
        server = try TestServer(.live, clock: serverOnClock ? clock : nil) { configuration in
            configuration.adminKey = Self.adminKey
            configuration.minimumPushInterval = 0
            if let both {
                let development = both.development
                configuration.apns.keyPath = development.keyFile.path
                configuration.apns.keyID = development.keyID
                configuration.apns.teamID = development.teamID
                configuration.apns.bundleID = development.bundleID
                configuration.apns.host = "127.0.0.1"
                configuration.apns.port = development.devicePort
                configuration.apns.managementPort = development.managementPort
                configuration.apns.productionHost = "127.0.0.1"
                configuration.apns.productionPort = both.production.devicePort
                configuration.apns.caFile = development.certificateFile.path
            }
            configure(&configuration)
        }
        sandbox = try #require(server.sandbox ?? both?.development)
        fleet =
            both.map { DeviceFleet(development: $0.development, production: $0.production, faults: faults) }
            ?? DeviceFleet(sandbox: sandbox, faults: faults)
        let (user, token) = try server.addUser(household: "Fisch", name: "Dennis")
        bearer = token
        userID = user.id
        householdID = user.householdID
    }

    /// Another member of the household: their user id and bearer token.
    func member(_ name: String, tint: String = "coral") throws -> (userID: UserID, bearer: String) {
        let token = SecureRandom.token(prefix: "ll_")
        let user = try app.store.accounts.createUser(
            household: "Fisch", name: name, avatarTint: tint, emoji: "🦊", locale: "de", tokenHash: SHA256.hex(token), now: Date()
        )
        return (user.id, token)
    }

    /// The app's API client for `bearer` (the harness user's when nil) on device `deviceID`.
    func client(bearer: String? = nil, deviceID: String? = nil) -> LivelineClient {
        LivelineClient(
            baseURL: URL(string: "http://127.0.0.1:\(app.port)")!, bearerToken: bearer ?? self.bearer, deviceID: deviceID, session: session,
            timeout: 20
        )
    }

    /// A phone of the user (or of `member`), launched: its app registered its tokens with the server.
    func phone(
        _ id: String, os: OSVersion = OSVersion(18, 0), allowed: Bool = true, frequent: Bool = false, rules: DeviceRules = DeviceRules(),
        member: (userID: UserID, bearer: String)? = nil, environment: PushEnvironment = .sandbox, widgets: [DeviceWidget] = []
    ) async -> SimulatedDevice {
        let device = SimulatedDevice(
            DeviceConfiguration(
                id: id, userID: (member?.userID ?? userID).rawValue, householdID: householdID.rawValue, environment: environment, os: os,
                liveActivitiesAllowed: allowed, frequentUpdatesAllowed: frequent, widgets: widgets
            ),
            rules: rules, registry: .builtIn, clock: clock.function
        )
        fleet.add(device, client: client(bearer: member?.bearer, deviceID: id))
        await fleet.settle(timeout: 30)
        // Launched once the server has what the app registered (its alert and push-to-start
        // tokens): a test that starts right after must not race a registration still in flight
        // on a loaded machine.
        let launchTokens = Set([device.alertToken] + device.startTokens.values)
        let owner = member?.userID ?? userID
        _ = await until(timeout: 60) {
            let registered = (try? app.store.tokens.activeTokens(userID: owner).filter { $0.deviceID == id }.map(\.token)) ?? []
            return launchTokens.isSubset(of: Set(registered))
        }
        return device
    }

    /// The household of the end-to-end tests: Jaqueline joins; Dennis's phone, her phone on
    /// iOS 18 and her iPad on 17.2, launched, with a priority budget that never binds.
    func couple() async throws -> (jaqueline: (userID: UserID, bearer: String), phones: [SimulatedDevice]) {
        let jaqueline = try member("Jaqueline")
        var rules = DeviceRules()
        rules.priorityBudget = 1000
        let phones = [
            await phone("dennis-phone", rules: rules),
            await phone("jaqueline-phone", rules: rules, member: jaqueline),
            await phone("jaqueline-ipad", os: OSVersion(17, 2), rules: rules, member: jaqueline),
        ]
        return (jaqueline, phones)
    }

    /// The meal-planning app on each of ``couple()``'s phones.
    func cookSuggestApps(_ phones: [SimulatedDevice], jaqueline: (userID: UserID, bearer: String)) -> [CookSuggestApp] {
        phones.map { phone in
            CookSuggestApp(
                device: phone, client: client(bearer: phone.id.hasPrefix("jaqueline") ? jaqueline.bearer : nil, deviceID: phone.id), fleet: fleet)
        }
    }

    func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
        try TestHTTPConnection(port: app.port).request(
            method, path, headers: ["Authorization": "Bearer \(Self.adminKey)"], body: json.map { Array($0.utf8) }
        )
    }

    static func trip(_ tripID: String, delay: Int, phase: String = "inProgress", remaining: Int = 240) -> String {
        #"{"type":"TripLiveActivityAttributes","attributes":{"tripId":"\#(tripID)","line":"S5","destination":"Flughafen"},"contentState":{"currentStop":"Hauptbahnhof","nextStop":"Messe","nextStopTime":803461320,"remainingTime":\#(remaining),"delay":\#(delay),"occupancy":"low","phase":"\#(phase)","progress":0.5}}"#
    }

    /// Creates (or changes) the trip context `trip:<tripID>`.
    func put(_ tripID: String, delay: Int, phase: String = "inProgress", remaining: Int = 240) throws {
        let response = try admin("PUT", "/v1/contexts/trip:\(tripID)", json: Self.trip(tripID, delay: delay, phase: phase, remaining: remaining))
        #expect(response.status == 200 || response.status == 201, "\(response.text)")
    }

    /// Starts `trip:<tripID>` by push-to-start on the user's phones; the answer's outcomes.
    @discardableResult
    func start(_ tripID: String, useChannel: Bool = false) throws -> [String] {
        let body = #"{"userIds":[\#(userID)],"alert":{"title":"Your trip"},"useChannel":\#(useChannel)}"#
        let response = try admin("POST", "/v1/contexts/trip:\(tripID)/start", json: body)
        #expect(response.status == 200, "\(response.text)")
        return (response.json?["starts"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
    }

    /// Sends a raw Live Activity push through the server's APNs client (for what the server
    /// itself would never send).
    func raw(_ token: String, _ aps: [String: Any], priority: APNSPriority = .immediate) async throws -> APNSResult {
        let payload = try JSONSerialization.data(withJSONObject: ["aps": aps])
        return await app.apns.send(.liveActivity(deviceToken: token, bundleID: sandbox.bundleID, payload: Array(payload), priority: priority))
    }

    var now: Int { Int(Date().timeIntervalSince1970) }

    /// Waits until `condition` holds, letting the fleet deliver; then until what the devices' apps
    /// started meanwhile (a push delivered just before the condition was checked may have started a
    /// registration) is done too.
    func until(timeout: TimeInterval = 10, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            await fleet.settle(timeout: 1)
            if condition() {
                await fleet.settle()
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// True once the outbox has nothing due or leased: every push the server meant to send has been
    /// answered, and each accepted one handed to the fleet (`fleet.settle()` then waits for its delivery).
    var outboxIsEmpty: Bool {
        (try? app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
    }

    func stop() {
        fleet.detach()
        server.stop()
    }
}

extension SimulatedDevice {
    /// The log messages about `contextKey` (or all), for assertions.
    func messages(_ contextKey: String? = nil) -> [String] {
        log.filter { contextKey == nil || $0.contextKey == contextKey }.map(\.description)
    }

    func logged(_ text: String) -> Bool { log.contains { $0.description.contains(text) } }
}
