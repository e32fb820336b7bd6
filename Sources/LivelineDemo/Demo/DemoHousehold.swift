import Foundation
import Liveline
import LivelineClient
import LivelineCrypto
import LivelineDevices
import LivelineModel
import LivelineSandbox
import LivelineServer
import LivelineShopping
import LivelineShoppingModel
import LivelineStore
import LivelineTransitModel
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The demo's household (docs/operations.md, "The demo"): Dennis and Jaqueline of household Fisch and their
/// three simulated iPhones — his on iOS 18, hers on iOS 18 and 17.2 — attached to the server's
/// in-process APNs sandbox, each app talking to the server through the SDK (`LivelineClient`).
/// It also remembers which phone should show which card, for the check at the end.
final class DemoHousehold: Sendable {
    /// A member: their user and a bearer token of a session made for this run.
    struct Member: Sendable {
        let user: UserRecord
        let bearer: String
        var id: Int { user.id.rawValue }
    }

    /// A phone: the device, its owner, and its app's connection to the server.
    struct Phone: Sendable {
        let device: SimulatedDevice
        let owner: Member
        let client: LivelineClient
        var id: String { device.id }
    }

    static let name = "Fisch"

    let dennis: Member
    let jaqueline: Member
    /// Dennis's phone first, then Jaqueline's two.
    let phones: [Phone]
    let fleet: DeviceFleet
    private let expected = Mutex<[String: Set<String>]>([:])

    var dennisPhone: Phone { phones[0] }
    var herPhones: [Phone] { Array(phones.dropFirst()) }

    /// The household in `app`'s store (the members made, or found when the data folder has them
    /// from an earlier demo, each with a new session) and its phones, added to a fleet on
    /// `sandbox`: their apps launch (register their tokens) at once.
    init(app: Application, sandbox: APNSSandbox, clock: DemoClock, rules: DeviceRules) throws {
        let accounts = app.store.accounts
        let existing = try accounts.users()
        func member(_ name: String, tint: String, emoji: String) throws -> Member {
            let token = SecureRandom.token(prefix: "ll_")
            if let user = existing.first(where: { $0.householdName == Self.name && $0.name == name }) {
                _ = try accounts.addSession(userID: user.id, tokenHash: SHA256.hex(token), now: clock.now)
                return Member(user: user, bearer: token)
            }
            let user = try accounts.createUser(
                household: Self.name, name: name, avatarTint: tint, emoji: emoji, locale: "en", tokenHash: SHA256.hex(token), now: clock.now)
            return Member(user: user, bearer: token)
        }
        dennis = try member("Dennis", tint: "azure", emoji: "🐟")
        jaqueline = try member("Jaqueline", tint: "coral", emoji: "🐠")
        fleet = DeviceFleet(sandbox: sandbox)
        let session = URLSession(configuration: .ephemeral)
        let server = URL(string: "http://127.0.0.1:\(app.port)")!
        // Jaqueline's iPhone on iOS 26 has the shopping widget of this week (WidgetKit pushes,
        // docs/engine.md, "Widget pushes").
        let week = ShoppingWeek.containing(DemoNarrator.isoDay(clock.now))?.monday
        let householdID = jaqueline.user.householdID
        let widgets = week.map { [DeviceWidget(kind: "shopping", contextKeys: ["shopping:\(householdID):\($0)"])] } ?? []
        let phones: [(String, Member, OSVersion, [DeviceWidget])] = [
            ("dennis-iphone", dennis, OSVersion(18, 0), []), ("jaqueline-iphone", jaqueline, OSVersion(26, 0), widgets),
            ("jaqueline-old-iphone", jaqueline, OSVersion(17, 2), []),
        ]
        self.phones = phones.map { id, owner, os, widgets in
            let configuration = DeviceConfiguration(
                id: id, userID: owner.id, householdID: owner.user.householdID.rawValue, environment: .sandbox, os: os, widgets: widgets)
            return Phone(
                device: SimulatedDevice(configuration, rules: rules, registry: app.engine.contracts, clock: clock.function), owner: owner,
                client: LivelineClient(
                    baseURL: server, bearerToken: owner.bearer, deviceID: id, environment: .sandbox, session: session, timeout: 20))
        }
        for phone in self.phones { fleet.add(phone.device, client: phone.client) }
    }

    func phone(_ id: String) -> Phone? { phones.first { $0.id == id } }

    /// Whether every app registered its launch tokens (alert and push-to-start) with the server
    /// within `timeout` seconds.
    func launched(in store: Store, timeout: TimeInterval) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            await fleet.settle(timeout: 1)
            let done = phones.allSatisfy { phone in
                let tokens = Set([phone.device.alertToken] + phone.device.startTokens.values)
                let registered = (try? store.tokens.activeTokens(userID: phone.owner.user.id).filter { $0.deviceID == phone.id }.map(\.token)) ?? []
                return tokens.isSubset(of: Set(registered))
            }
            if done { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    // MARK: What each phone should show

    /// From now on `phones` should show a card of `contextKey`.
    func expect(_ contextKey: String, on phones: [Phone]) {
        expected.withLock { expected in
            for phone in phones { expected[phone.id, default: []].insert(contextKey) }
        }
    }

    /// The contexts `phone` should show a card of, and those it has one of, sorted.
    func contexts(of phone: Phone) -> [String] {
        let shown = Set(phone.device.activities.map(\.contextKey))
        return expected.withLock { $0[phone.id] ?? [] }.union(shown).sorted()
    }

    /// Ends what an earlier demo on the same data folder left going — both members' shopping
    /// sessions of `week` and their rides — so that this run's phones, which know nothing of it,
    /// get every card of this run from its start (a session still going would only be joined).
    func endLeftovers(week: String) async {
        for member in [dennisPhone, herPhones[0]] {
            _ = try? await member.client.endShopping(week: week)
            _ = try? await member.client.endAllTrips()
        }
        await fleet.settle(timeout: 5)
    }

    // MARK: The users

    /// Every phone's user swipes away its ended cards of `type` (as before a story starts again),
    /// and the apps report it.
    func swipeAwayEnded(_ type: String) async {
        for phone in phones {
            let ended = Set(phone.device.activities.filter { $0.attributesType == type && $0.state == .ended && $0.isVisible }.map(\.contextKey))
            for key in ended.sorted() { fleet.dismiss(device: phone.id, contextKey: key) }
        }
        await fleet.settle(timeout: 5)
    }
}
