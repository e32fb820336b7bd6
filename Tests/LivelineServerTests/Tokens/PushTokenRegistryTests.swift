import Foundation
import LivelineCrypto
import LivelineModel
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// `POST`/`DELETE`/`GET /api/apns/register` through HTTP against a real SQLite file.
@Suite struct PushTokenRegistryTests {
    static let tokenA = String(repeating: "ab", count: 32)
    static let tokenB = String(repeating: "cd", count: 32)
    /// A browser's P-256 public key (RFC 8291, Appendix A).
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    /// 65 bytes shaped like one that are not a point on the curve (registration takes it: the
    /// first push ends the subscription, `DispatcherWebPushLaneTests`).
    static let notAPoint = Base64URL.encode([0x04] + [UInt8](repeating: 7, count: 64))
    static let auth = Base64URL.encode([UInt8](repeating: 9, count: 16))

    func register(_ server: TestServer, _ token: String, _ json: String) throws -> TestHTTPConnection.Response {
        try server.request("POST", "/api/apns/register", token: token, json: json)
    }

    @Test func registeringTheSameTokenTwiceIsIdempotent() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let body = #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"iphone-1"}"#
        let first = try register(server, bearer, body)
        #expect(first.status == 200)
        #expect(first.json?["outcome"] as? String == "created")
        #expect(first.json?["environment"] as? String == "sandbox")
        let second = try register(server, bearer, body)
        #expect(second.json?["outcome"] as? String == "unchanged")
        #expect(try server.app.store.tokens.history(householdID: user.householdID).count == 1)
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).count == 1)
    }

    @Test func aNewerTokenReplacesTheOlderAndKeepsHistory() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        _ = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"iphone-1"}"#)
        let replaced = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenB)","device_id":"iphone-1"}"#)
        #expect(replaced.json?["outcome"] as? String == "replaced")
        let active = try server.app.store.tokens.activeTokens(userID: user.id)
        #expect(active.map(\.token) == [Self.tokenB])
        let history = try server.app.store.tokens.history(householdID: user.householdID)
        #expect(history.count == 2)
        #expect(history.contains { $0.token == Self.tokenA && $0.status.rawValue == "replaced" })
    }

    @Test func aMissingOrNullTokenIs400AndDeletesNothing() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        _ = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"iphone-1"}"#)
        for body in [
            #"{"kind":"alert","token":null,"device_id":"iphone-1"}"#, #"{"kind":"alert","device_id":"iphone-1"}"#,
            #"{"kind":"alert","token":"","device_id":"iphone-1"}"#,
        ] {
            let response = try register(server, bearer, body)
            #expect(response.status == 400, "\(body)")
            #expect(response.errorField == "token")
        }
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).map(\.token) == [Self.tokenA])
    }

    @Test func sandboxAndProductionAreSeparate() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let sandbox = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"d","environment":"sandbox"}"#)
        let production = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenB)","device_id":"d","environment":"production"}"#)
        #expect(sandbox.json?["outcome"] as? String == "created")
        #expect(production.json?["outcome"] as? String == "created")
        #expect(Set(try server.app.store.tokens.activeTokens(userID: user.id).map(\.environment.rawValue)) == ["sandbox", "production"])
    }

    @Test func everyKindIsKeyedAsTheSpecSays() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let bodies = [
            #"{"kind":"la-pushToStart","token":"\#(Self.tokenA)","attributes_type":"ShoppingActivityAttributes","device_id":"d"}"#,
            #"{"kind":"la-pushToStart","token":"\#(Self.tokenB)","attributes_type":"TripLiveActivityAttributes","device_id":"d"}"#,
            #"{"kind":"la-update","token":"\#(Self.tokenA)","context_key":"shopping:1:2026-01-05","device_id":"d","frequent_pushes_enabled":true}"#,
            #"{"kind":"web-push","token":{"endpoint":"https://push.example/abc","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}}"#,
        ]
        for body in bodies {
            let response = try register(server, bearer, body)
            #expect(response.status == 200, "\(body): \(response.text)")
            #expect(response.json?["outcome"] as? String == "created")
        }
        let active = try server.app.store.tokens.activeTokens(userID: user.id)
        #expect(active.count == 4)
        #expect(active.first { $0.kind.rawValue == "la-update" }?.frequentPushesEnabled == true)
        let list = try server.request("GET", "/api/apns/register", token: bearer)
        #expect(list.status == 200)
        let devices = try #require(list.json?["devices"] as? [[String: Any]])
        #expect(devices.flatMap { ($0["tokens"] as? [[String: Any]]) ?? [] }.count == 4)
        // The subscription without a device_id belongs to the bearer token's device session.
        #expect(devices.count == 2)
        #expect(devices.first?["deviceId"] as? String == "d")
        #expect((devices.last?["deviceId"] as? String)?.hasPrefix("session-") == true)
        #expect(!list.text.contains("https://push.example/abc"))
        // Only redacted prefixes are ever shown.
        #expect(!list.text.contains(Self.tokenA) && !list.text.contains(Self.tokenB) && !list.text.contains(Self.auth))
        #expect(list.text.contains(String(Self.tokenA.prefix(8)) + "…"))
    }

    @Test func badInputIsA400NamingTheFieldAndChangesNothing() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let cases: [(String, String)] = [
            (#"{"token":"\#(Self.tokenA)"}"#, "kind"),
            (#"{"kind":"fax","token":"\#(Self.tokenA)"}"#, "kind"),
            (#"{"kind":"alert","token":"not hex!"}"#, "token"),
            (#"{"kind":"alert","token":"abc"}"#, "token"),
            (#"{"kind":"alert","token":42}"#, "token"),
            (#"{"kind":"alert","token":"\#(Self.tokenA)","environment":"staging"}"#, "environment"),
            (#"{"kind":"alert","token":"\#(Self.tokenA)","device_id":""}"#, "device_id"),
            (#"{"kind":"alert","token":"\#(Self.tokenA)","frequent_pushes_enabled":"yes"}"#, "frequent_pushes_enabled"),
            (#"{"kind":"la-pushToStart","token":"\#(Self.tokenA)"}"#, "attributes_type"),
            (#"{"kind":"la-pushToStart","token":"\#(Self.tokenA)","attributes_type":"Not A Type"}"#, "attributes_type"),
            (#"{"kind":"la-pushToStart","token":"\#(Self.tokenA)","attributes_type":"PizzaActivityAttributes"}"#, "attributes_type"),
            (#"{"kind":"la-update","token":"\#(Self.tokenA)"}"#, "context_key"),
            (#"{"kind":"web-push","token":{"endpoint":"https://p.example/x","keys":{"p256dh":"AAAA","auth":"\#(Self.auth)"}}}"#, "token.keys.p256dh"),
            (
                #"{"kind":"web-push","token":{"endpoint":"ftp://p.example/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}}"#,
                "token.endpoint"
            ),
            (#"{"kind":"web-push","token":{"endpoint":"https://p.example/x","keys":{"p256dh":"\#(Self.p256dh)"}}}"#, "token.keys.auth"),
            (
                #"{"kind":"web-push","token":{"endpoint":"https://localhost/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}}"#,
                "token.endpoint"
            ),
            (#"{"kind":"web-push","token":{"endpoint":"https://p.example/x","keys":{"auth":"\#(Self.auth)"}}}"#, "token.keys.p256dh"),
            (#"{"kind":"web-push","token":{"endpoint":"https://p.example/x"}}"#, "token.keys"),
            (
                #"{"kind":"web-push","token":{"endpoint":"https://10.0.0.7/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}}"#,
                "token.endpoint"
            ),
            (
                #"{"kind":"web-push","token":{"endpoint":"https://[::1]:8443/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}}"#,
                "token.endpoint"
            ),
            (
                // Without LIVELINE_WEBPUSH_ALLOW_INSECURE, http:// is refused even to this machine.
                #"{"kind":"web-push","token":{"endpoint":"http://127.0.0.1:9/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}}"#,
                "token.endpoint"
            ),
            (#"["alert"]"#, "body"),
        ]
        for (body, field) in cases {
            let response = try register(server, bearer, body)
            #expect(response.status == 400, "\(body)")
            #expect(response.errorCode == "badRequest", "\(body)")
            #expect(response.errorField == field, "\(body): \(response.text)")
        }
        #expect(try server.app.store.tokens.history(householdID: user.householdID).isEmpty)
    }

    /// A key is checked for its shape only (a pattern cannot tell a point on P-256): one that is
    /// not a point is taken, and `DELETE` removes it as registered.
    @Test func aWebPushKeyIsTakenByItsShape() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let subscription = #"{"endpoint":"https://push.example/abc","keys":{"p256dh":"\#(Self.notAPoint)","auth":"\#(Self.auth)"}}"#
        let registered = try register(server, bearer, #"{"kind":"web-push","token":\#(subscription)}"#)
        #expect(registered.status == 200, "\(registered.text)")
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).count == 1)
        let removed = try server.request("DELETE", "/api/apns/register", token: bearer, json: #"{"kind":"web-push","token":\#(subscription)}"#)
        #expect(removed.json?["removed"] as? Int == 1, "\(removed.text)")
    }

    /// A subscription stored when registration took other endpoints (an earlier version, or
    /// `LIVELINE_WEBPUSH_ALLOW_INSECURE` since turned off) can still be removed as it was stored.
    @Test func aSubscriptionStoredUnderOtherRulesCanBeRemoved() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        for endpoint in ["https://pushservice/x", "http://127.0.0.1:9/x", "HTTPS://Push.Example/x#frag"] {
            let subscription = WebPushSubscription(endpoint: endpoint, keys: .init(p256dh: Self.p256dh, auth: Self.auth))
            try server.app.store.tokens.register(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "browser", kind: .webPush, environment: .sandbox,
                    token: subscription.canonicalJSON, attributesType: nil, contextKey: nil),
                now: Date())
            #expect(try server.app.store.tokens.activeTokens(userID: user.id).count == 1)
            let removed = try server.request(
                "DELETE", "/api/apns/register", token: bearer, json: #"{"kind":"web-push","token":\#(subscription.canonicalJSON)}"#)
            #expect(removed.status == 200 && removed.json?["removed"] as? Int == 1, "\(endpoint): \(removed.text)")
            #expect(try server.app.store.tokens.activeTokens(userID: user.id).isEmpty, "\(endpoint)")
        }
        // Without a token, a web-push removal is told the subscription's form.
        let missing = try server.request("DELETE", "/api/apns/register", token: bearer, json: #"{"kind":"web-push"}"#)
        #expect(missing.status == 400 && missing.text.contains("PushSubscription"), "\(missing.text)")
    }

    @Test func deleteRemovesOnlyTheCallersHouseholdsToken() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (dennis, dennisBearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let (_, malloryBearer) = try server.addUser(household: "Nachbarn", name: "Mallory")
        _ = try register(server, dennisBearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"d"}"#)

        let foreign = try server.request("DELETE", "/api/apns/register", token: malloryBearer, json: #"{"token":"\#(Self.tokenA)"}"#)
        #expect(foreign.status == 200)
        #expect(foreign.json?["removed"] as? Int == 0)
        #expect(try server.app.store.tokens.activeTokens(userID: dennis.id).count == 1)
        let malloryList = try server.request("GET", "/api/apns/register", token: malloryBearer)
        #expect((malloryList.json?["devices"] as? [Any])?.isEmpty == true)

        let own = try server.request("DELETE", "/api/apns/register", token: dennisBearer, json: #"{"token":"\#(Self.tokenA.uppercased())"}"#)
        #expect(own.json?["removed"] as? Int == 1)
        #expect(try server.app.store.tokens.activeTokens(userID: dennis.id).isEmpty)
        let missing = try server.request("DELETE", "/api/apns/register", token: dennisBearer, json: #"{"kind":"alert"}"#)
        #expect(missing.status == 400)
        #expect(missing.errorField == "token")
    }

    @Test func concurrentRegistrationsOfOneSlotLeaveOneActiveToken() async throws {
        // Eight kept-alive connections at once: the server's threads take them.
        let server = try TestServer(.live)
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let port = try server.port
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<8 {
                group.addTask {
                    let connection = try TestHTTPConnection(port: port)
                    return try (0..<20).map { index in
                        let token = String(format: "%02x%02x", client, index) + String(repeating: "0", count: 60)
                        return try connection.request(
                            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
                            json: #"{"kind":"alert","token":"\#(token)","device_id":"shared"}"#
                        ).status
                    }
                }
            }
            var all: [Int] = []
            for try await part in group { all += part }
            return all
        }
        #expect(statuses.count == 160 && statuses.allSatisfy { $0 == 200 })
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).count == 1)
        #expect(try server.app.store.tokens.history(householdID: user.householdID).count == 160)
    }
}

extension PushTokenRegistryTests {
    @Test func theListingFollowsEveryWrite() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        func prefixes() throws -> [String] {
            let list = try server.request("GET", "/api/apns/register", token: bearer)
            let devices = (list.json?["devices"] as? [[String: Any]]) ?? []
            return devices.flatMap { ($0["tokens"] as? [[String: Any]]) ?? [] }.compactMap { $0["tokenPrefix"] as? String }
        }
        #expect(try prefixes().isEmpty)
        _ = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"d"}"#)
        #expect(try prefixes() == ["abababab…"])
        #expect(try prefixes() == ["abababab…"])
        _ = try register(server, bearer, #"{"kind":"alert","token":"\#(Self.tokenB)","device_id":"d"}"#)
        #expect(try prefixes() == ["cdcdcdcd…"])
        _ = try server.request("DELETE", "/api/apns/register", token: bearer, json: #"{"token":"\#(Self.tokenB)"}"#)
        #expect(try prefixes().isEmpty)
    }
}

extension PushTokenRegistryTests {
    @Test func anotherHouseholdRegisteringTheSameTokenDoesNotTouchOurs() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (ada, adaBearer) = try server.addUser(household: "Fisch", name: "Ada")
        let (_, malloryBearer) = try server.addUser(household: "Nachbarn", name: "Mallory")
        _ = try register(server, adaBearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"phone"}"#)
        let foreign = try register(server, malloryBearer, #"{"kind":"alert","token":"\#(Self.tokenA)","device_id":"phone"}"#)
        #expect(foreign.status == 200)
        #expect(try server.app.store.tokens.activeTokens(userID: ada.id).map(\.token) == [Self.tokenA])
        #expect(try server.app.store.tokens.history(householdID: ada.householdID).count == 1)
    }

    @Test func aWebPushSubscriptionKeepsTheDeviceIdAndShowsOnlyTheHost() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let endpoint = "https://push.example/send/very-secret-subscription-id"
        func subscribe(_ auth: String) throws -> TestHTTPConnection.Response {
            try register(
                server, bearer,
                #"{"kind":"web-push","device_id":"laptop","token":{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(auth)"}}}"#
            )
        }
        let first = try subscribe(Self.auth)
        #expect(first.json?["deviceId"] as? String == "laptop")
        #expect(first.json?["tokenPrefix"] as? String == "push.example…")
        // New keys for the same endpoint replace the subscription.
        let renewed = try subscribe(Base64URL.encode([UInt8](repeating: 3, count: 16)))
        #expect(renewed.json?["outcome"] as? String == "replaced")
        let list = try server.request("GET", "/api/apns/register", token: bearer)
        #expect(!list.text.contains("very-secret-subscription-id") && !first.text.contains("very-secret-subscription-id"))
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).count == 1)
    }
}
