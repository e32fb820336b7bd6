import Foundation
import LivelineClient
import LivelineModel
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// The SDK against a real running server over HTTP: registration, pulls, reports.
@Suite struct ClientTests {
    static let token = String(repeating: "7a", count: 32)

    @Test func registrationSendsTheBuildsEnvironmentUnlessTold() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        // On Linux the build's environment is the DEBUG guess (on an iPhone: its provisioning profile).
        #if DEBUG
        #expect(LivelineClient.buildEnvironment == .sandbox)
        #else
        #expect(LivelineClient.buildEnvironment == .production)
        #endif
        try await server.client(deviceID: "debug-build", environment: .sandbox).register(.alert, token: String(repeating: "a1", count: 32))
        // A Release build run from Xcode says so; one that sends none leaves it to the server.
        try await server.client(deviceID: "release-build", environment: .production).register(.alert, token: String(repeating: "b2", count: 32))
        try await server.client(deviceID: "overridden").register(.alert, token: String(repeating: "c3", count: 32), environment: .production)
        try await server.client(deviceID: "unsaid", environment: nil).register(.alert, token: String(repeating: "d4", count: 32))
        let tokens = Dictionary(
            uniqueKeysWithValues: try server.app.store.tokens.activeTokens(userID: server.userID).map { ($0.deviceID, $0) })
        #expect(tokens["debug-build"]?.environment == .sandbox && tokens["debug-build"]?.environmentSource == .app)
        #expect(tokens["release-build"]?.environment == .production && tokens["release-build"]?.environmentSource == .app)
        #expect(tokens["overridden"]?.environment == .production && tokens["overridden"]?.environmentSource == .app)
        #expect(tokens["unsaid"]?.environmentSource == .default, "the server's default guess, tried in the other one on BadDeviceToken")
    }

    /// A provisioning profile is a signed container around a property list; its entitlements name
    /// the APNs environment of the build's tokens.
    @Test func theBuildsEnvironmentIsReadFromItsProvisioningProfile() throws {
        func profile(_ environment: String?) -> Data {
            let entitlements = environment.map { "<key>aps-environment</key><string>\($0)</string>" } ?? ""
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0"><dict><key>Name</key><string>Dev</string>\
                <key>Entitlements</key><dict>\(entitlements)<key>get-task-allow</key><true/></dict></dict></plist>
                """
            return Data([0x30, 0x82, 0x1f, 0x00, 0x06, 0x09]) + Data(plist.utf8) + Data([0xa0, 0x82, 0x0b, 0x00, 0xff])
        }
        #expect(LivelineClient.environment(inProvisioningProfile: profile("development")) == .sandbox)
        #expect(LivelineClient.environment(inProvisioningProfile: profile("production")) == .production)
        #expect(LivelineClient.environment(inProvisioningProfile: profile(nil)) == nil)
        #expect(LivelineClient.environment(inProvisioningProfile: Data("not a profile".utf8)) == nil)
    }

    @Test func registrationIsIdempotentAndNeverSendsAnEmptyToken() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client()
        let first = try await client.register(
            .update, token: Self.token, contextKey: "trip:1", attributesType: "TripLiveActivityAttributes", frequentPushesEnabled: true)
        #expect(first.outcome == .created && first.deviceID == "iphone-1")
        let second = try await client.register(
            .update, token: Self.token, contextKey: "trip:1", attributesType: "TripLiveActivityAttributes", frequentPushesEnabled: true)
        #expect(second.outcome == .unchanged)
        let tokens = try server.app.store.tokens.activeTokens(userID: server.userID)
        #expect(tokens.count == 1 && tokens.first?.frequentPushesEnabled == true && tokens.first?.contextKey == "trip:1")

        await #expect(throws: LivelineClientError.invalidArgument("an empty la-update token is not registered")) {
            try await client.register(.update, token: "", contextKey: "trip:1")
        }
        #expect(try server.app.store.tokens.activeTokens(userID: server.userID).map(\.token) == [Self.token], "nothing deleted")

        let stranger = LivelineClient(baseURL: server.baseURL, bearerToken: "ll_wrong")
        do {
            _ = try await stranger.register(.alert, token: Self.token)
            Issue.record("a wrong bearer token was accepted")
        } catch let error as LivelineClientError {
            guard case .server(let status, let code, _, _) = error else { throw error }
            #expect(status == 401 && code == "unauthorized")
        }
    }

    @Test func aPullIsUnchangedAtTheSameRevisionAndTheTypedTruthOtherwise() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client()
        #expect(try server.admin("PUT", "/v1/contexts/trip:pull", json: ClientTestServer.trip(delay: 1)).status == 201)
        // A /v1 context is the app's to pull only once one of its devices follows it.
        await #expect(throws: LivelineClientError.self) { try await client.pull(contextKey: "trip:pull", sinceRev: nil) }
        try await client.register(.update, token: Self.token, contextKey: "trip:pull", attributesType: "TripLiveActivityAttributes")

        guard case .snapshot(let first) = try await client.pull(TripLiveActivityAttributes.self, contextKey: "trip:pull", sinceRev: nil) else {
            Issue.record("the first pull brings the truth")
            return
        }
        #expect(first.rev == 1 && first.state.delay == 1 && first.state.phase == .inProgress && !first.ended)
        guard case .unchanged(let rev) = try await client.pull(TripLiveActivityAttributes.self, contextKey: "trip:pull", sinceRev: 1) else {
            Issue.record("the same revision is unchanged")
            return
        }
        #expect(rev == 1)
        #expect(try server.admin("PUT", "/v1/contexts/trip:pull", json: ClientTestServer.trip(delay: 4)).status == 200)
        guard case .snapshot(let second) = try await client.pull(TripLiveActivityAttributes.self, contextKey: "trip:pull", sinceRev: 1) else {
            Issue.record("a newer revision is the truth")
            return
        }
        #expect(second.rev == 2 && second.state.delay == 4)

        // Another household's user cannot pull it, even knowing the key.
        let otherBearer = try server.server.addUser(household: "Other", name: "Olga").token
        await #expect(throws: LivelineClientError.server(status: 404, code: "notFound", message: "there is no context trip:pull", field: nil)) {
            try await server.client(bearer: otherBearer).pull(contextKey: "trip:pull", sinceRev: nil)
        }
    }

    @Test func receiptsAndDismissalsReachTheContextsTimeline() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client(deviceID: "iphone-7")
        server.sandbox.registerDevice(token: Self.token)  // a real phone: the catch-up push is accepted
        #expect(try server.admin("PUT", "/v1/contexts/trip:seen", json: ClientTestServer.trip(delay: 1)).status == 201)
        try await client.register(.update, token: Self.token, contextKey: "trip:seen", attributesType: "TripLiveActivityAttributes")
        let reconciler = client.reconciler(for: TripLiveActivityAttributes.self, contextKey: "trip:seen")
        guard case .applied(let rev) = await reconciler.enteredForeground() else {
            Issue.record("the first reconcile applies the truth")
            return
        }
        #expect(rev == 1)
        let timeline = try server.admin("GET", "/v1/contexts/trip:seen/timeline")
        #expect(timeline.json?["acknowledged"] as? [String: Int] == ["iphone-7": 1], "\(timeline.text)")

        let dismissed = try await client.reportDismissed(contextKey: "trip:seen")
        #expect(dismissed.endedTokens == 1)
        #expect(try server.app.store.tokens.activeTokens(userID: server.userID).isEmpty)
    }

    @Test func anOptOutIsHonouredByTheServer() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client(deviceID: "iphone-2")
        let startToken = String(repeating: "5b", count: 32)
        server.sandbox.registerDevice(token: startToken)
        try await client.register(.pushToStart, token: startToken, attributesType: "TripLiveActivityAttributes")
        #expect(try await client.setLiveActivities(enabled: false, for: "TripLiveActivityAttributes") == ["TripLiveActivityAttributes": false])
        #expect(try server.admin("PUT", "/v1/contexts/trip:opt", json: ClientTestServer.trip(delay: 1)).status == 201)
        let body = #"{"userIds":[\#(server.userID)],"alert":{"title":"Your trip"}}"#
        let refused = try server.admin("POST", "/v1/contexts/trip:opt/start", json: body)
        #expect((refused.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "optedOut", "\(refused.text)")
        // Drained: a start enqueued by mistake would have been sent by now.
        #expect(try await eventually { try server.outboxIsEmpty() })
        #expect(server.sandbox.accepted(token: startToken).isEmpty)

        await #expect(throws: LivelineClientError.self) { try await client.setLiveActivities(enabled: false, for: "NoSuchAttributes") }
        try await client.setLiveActivities(enabled: true, for: "TripLiveActivityAttributes")
        let started = try server.admin("POST", "/v1/contexts/trip:opt/start", json: body)
        #expect((started.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued")
        #expect(await eventually { server.sandbox.accepted(token: startToken).count == 1 })
    }

    @Test func theInboxReadsAndMarksRead() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client()
        #expect(
            try server.admin("POST", "/v1/notify", json: #"{"userId":\#(server.userID),"title":"Hi","dedupeKey":"k","link":"/x"}"#).status == 201
        )
        let items = try await client.notifications()
        #expect(items.count == 1 && items[0].title == "Hi" && !items[0].read && items[0].link == "/x")
        try await client.markRead(notificationID: items[0].id)
        #expect(try await client.notifications().first?.read == true)
    }
}
