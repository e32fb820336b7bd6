import Foundation
import LivelineModel
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// The pages, through the router and handlers (in-process) of a real server whose pushes go to its
/// in-process APNs sandbox: what each shows, the actions, the payload check, and the embedded default's pushes.
@Suite struct DashboardPagesTests {
    static let token = "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899"

    /// A signed-in visitor of a server with a household whose phone follows `trip:9`.
    static func setUp() throws -> (DashboardServer, DashboardVisitor, bearer: String) {
        let (server, visitor, bearer, _) = try setUpWithUser()
        return (server, visitor, bearer)
    }

    static func setUpWithUser() throws -> (DashboardServer, DashboardVisitor, bearer: String, user: UserRecord) {
        let server = try DashboardServer()
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        return (server, visitor, bearer, user)
    }

    /// `docs/engine.md`, "Widget pushes": a shopping change's push to the household's widget is in
    /// the week's timeline with APNs' answer.
    @Test func aWidgetPushOfAChangeIsInTheActivitysTimeline() async throws {
        let (server, visitor, bearer, user) = try Self.setUpWithUser()
        defer { server.stop() }
        let auth = ["Authorization": "Bearer \(bearer)"]
        let widgets = #"{"kind":"widgets","token":"\#(Self.token)","device_id":"iphone-a","widget_kinds":["shopping"]}"#
        #expect(try server.request("POST", "/api/apns/register", headers: auth, body: widgets).status == 200)
        #expect(try server.request("POST", "/api/shopping/2026-01-05/items", headers: auth, body: #"{"label":"Milch"}"#).status == 201)
        let key = "shopping:\(user.householdID):2026-01-05"
        let sent = try await eventually {
            try server.app.store.deliveries.attempts(contextKey: key).contains { $0.note?.hasPrefix("widget push") == true && $0.status == 200 }
        }
        #expect(sent, "the widget push was not accepted")
        let page = try visitor.get("/dashboard/activities/\(key)")
        #expect(page.status == 200)
        #expect(page.text.contains("(widget push: \(key) changed)"), "\(page.text)")
    }

    @Test func fromAFreshDataFolderWithoutAnAPNsKeyARegisteredTokensPushIsAcceptedAndShown() async throws {
        let (server, visitor, bearer, user) = try Self.setUpWithUser()
        defer { server.stop() }
        try server.putTrip("trip:9", stop: "Hbf")
        let registered = try server.request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            body:
                #"{"kind":"la-update","token":"\#(Self.token)","device_id":"iphone-a","context_key":"trip:9","attributes_type":"TripLiveActivityAttributes"}"#
        )
        #expect(registered.status == 200 || registered.status == 201)
        try server.putTrip("trip:9", stop: "Messe", delay: 2)
        // The sandbox accepts the server's own token: a 200 for the newest revision.
        let accepted = try await eventually {
            try server.app.store.deliveries.lastDeliveredRev(contextKey: "trip:9") == 2
        }
        #expect(accepted, "the push of rev 2 was not accepted")
        let tokens = try server.app.store.tokens.activeTokens(userID: user.id)
        #expect(tokens.contains { $0.kind == .update && $0.status == .active }, "the token stays active")
        // The activity page shows the card of the new state, the device with the revision it was
        // sent, and the accepted delivery in the timeline.
        let page = try visitor.get("/dashboard/activities/trip:9")
        #expect(page.status == 200)
        #expect(page.text.contains(#"data-card="lock-screen"><p>🚆 S5 → Flughafen</p>"#))
        #expect(page.text.contains("+2 min"))
        #expect(page.text.contains(#"<tr><td>iphone-a</td><td>Dennis</td><td><code>aabbccdd…</code> active</td><td>2</td>"#))
        #expect(page.text.contains(#"<span class="status-ok">200</span>"#))
        #expect(page.text.contains("apns-id <code>"))
        #expect(!page.text.contains(Self.token), "a token shows by its prefix only")
        // The overview's chart counts those pushes (all accepted), and shows what the sandbox
        // accepted; the same is on the control route.
        let overview = try visitor.get("/dashboard")
        let attempts = try #require(try server.app.engine.timeline(key: "trip:9")).entries.compactMap { entry -> Int? in
            if case .delivery(let attempt) = entry { attempt.status } else { nil }
        }
        #expect(attempts.count >= 1 && attempts.allSatisfy { $0 == 200 })
        #expect(
            overview.text.contains(
                #"<p id="push-summary">\#(attempts.count) pushes in the last hour: \#(attempts.count) accepted, 0 refused, 0 without an answer</p>"#))
        #expect(overview.text.contains(#"<rect class="fill-accepted""#), "a bar is drawn")
        #expect(overview.text.contains("APNs sandbox"))
        #expect(overview.text.contains("<code>aabbccdd…</code>"))
        let control = try server.admin("GET", "/v1/sandbox/accepted?limit=5")
        #expect(control.status == 200)
        let pushes = try #require(control.json?["pushes"] as? [[String: Any]])
        #expect(pushes.first?["tokenPrefix"] as? String == "aabbccdd…")
        #expect(pushes.first?["event"] as? String == "update")
        #expect((control.json?["total"] as? Int ?? 0) >= 1)
        #expect(!control.text.contains(Self.token))
        #expect(try server.request("GET", "/v1/sandbox/accepted").status == 401, "the control route needs the admin key")
        #expect(try server.admin("GET", "/v1/sandbox/accepted?limit=0").errorField == "limit")
        #expect(try server.admin("GET", "/v1/sandbox/accepted?limit=lots").errorField == "limit")
    }

    @Test func theOverviewListsActivitiesByTypeAndState() throws {
        let (server, visitor, _) = try Self.setUp()
        defer { server.stop() }
        try server.putTrip("trip:1", stop: "Hbf")
        try server.putTrip("trip:2", stop: "Hbf")
        _ = try server.admin("POST", "/v1/contexts/trip:2/end", json: "{}")
        let page = try visitor.get("/dashboard")
        #expect(
            page.text.contains(#"<tr><td>TripLiveActivityAttributes</td><td><span class="num">1</span></td><td><span class="num">1</span></td></tr>"#)
        )
        #expect(page.text.contains(#"<a href="/dashboard/activities/trip:1">trip:1</a>"#))
        #expect(page.text.contains(#"<a href="/dashboard/activities/trip:2">trip:2</a>"#))
        #expect(page.text.contains("<h2 id=\"h-pushes\">Pushes of the last hour</h2>"))
        #expect(page.text.contains("role=\"img\""))
    }

    @Test func resendAndEndGoThroughTheEngine() throws {
        let (server, visitor, _) = try Self.setUp()
        defer { server.stop() }
        try server.putTrip("trip:3", stop: "Hbf")
        let token = try #require(DashboardVisitor.csrf(in: try visitor.get("/dashboard/activities/trip:3").text))
        let resent = try visitor.request("POST", "/dashboard/activities/trip:3/resend", form: ["csrf": token])
        #expect(resent.headers["location"] == "/dashboard/activities/trip:3?done=resent")
        #expect(try server.app.engine.context(key: "trip:3")?.rev == 2)
        #expect(try visitor.get("/dashboard/activities/trip:3?done=resent").text.contains("recorded as a new revision"))
        #expect(try visitor.get("/dashboard/activities/trip:3").text.contains("resent from the dashboard"), "the timeline says why")
        let ended = try visitor.request("POST", "/dashboard/activities/trip:3/end", form: ["csrf": token])
        #expect(ended.headers["location"] == "/dashboard/activities/trip:3?done=ended")
        #expect(try server.app.engine.context(key: "trip:3")?.state == .ended)
        let page = try visitor.get("/dashboard/activities/trip:3")
        #expect(page.text.contains("(ended)"), "the card shows it ended")
        #expect(!page.text.contains("Resend the current state"), "an ended activity has no actions")
        // Again: nothing changes, and it says so.
        let again = try visitor.request("POST", "/dashboard/activities/trip:3/resend", form: ["csrf": token])
        #expect(again.headers["location"] == "/dashboard/activities/trip:3?done=already-ended")
        #expect(try visitor.request("POST", "/dashboard/activities/nope:1/end", form: ["csrf": token]).status == 404)
        #expect(try visitor.get("/dashboard/activities/nope:1").status == 404)
    }

    @Test func thePayloadCheckGivesTheReportOfContractsCheck() throws {
        let (server, visitor, _) = try Self.setUp()
        defer { server.stop() }
        let page = try visitor.get("/dashboard/check")
        #expect(page.text.contains(#"<label for="payload">"#))
        #expect(page.text.contains(#"<option value="TripLiveActivityAttributes">TripLiveActivityAttributes</option>"#))
        let token = try #require(DashboardVisitor.csrf(in: page.text))
        // A payload whose content state lacks a field the contract requires.
        let payload = #"{"aps":{"timestamp":1796000000,"event":"update","content-state":{"currentStop":"Hbf"}}}"#
        let answer = try visitor.request(
            "POST", "/dashboard/check", form: ["csrf": token, "payload": payload, "contract": "TripLiveActivityAttributes", "destination": "device"])
        #expect(answer.status == 200)
        let contract = try #require(ContractRegistry.builtIn.contract(named: "TripLiveActivityAttributes"))
        let report = PayloadCheck(destination: .device, now: Date(), registry: .builtIn).check(json: Data(payload.utf8), contract: contract)
        #expect(!report.isAccepted)
        let expected = report.text(file: "payload", destination: .device)
        #expect(
            answer.text.contains(
                "<pre data-report>" + expected.replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;") + "</pre>")
        )
        #expect(answer.text.contains("rejected"))
        #expect(answer.text.contains("contentState") || answer.text.contains("content-state"))
        // The payload stays in the form, escaped.
        #expect(answer.text.contains("&quot;currentStop&quot;:&quot;Hbf&quot;"))
        // A payload that names no contract, and no choice: it says what to do.
        let bare = try visitor.request("POST", "/dashboard/check", form: ["csrf": token, "payload": #"{"aps":{}}"#, "contract": ""])
        #expect(bare.text.contains("names no contract"))
        // The check form needs its token too.
        #expect(try visitor.request("POST", "/dashboard/check", form: ["payload": payload]).status == 403)
    }

    @Test func devicesAndTokensShowPrefixesReasonsAndAges() throws {
        let (server, visitor, bearer) = try Self.setUp()
        defer { server.stop() }
        let registered = try server.request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            body: #"{"kind":"alert","token":"\#(Self.token)","device_id":"iphone-a"}"#)
        #expect(registered.status == 200 || registered.status == 201)
        let page = try visitor.get("/dashboard/devices")
        #expect(page.text.contains("<h2 id=\"h-household-1\">Household Fisch</h2>"))
        #expect(page.text.contains("<td>iphone-a</td><td>Dennis</td><td>alert</td>"))
        #expect(page.text.contains("<code>aabbccdd…</code>"))
        #expect(!page.text.contains(Self.token))
        #expect(page.text.contains(#"<span class="status-ok">active</span>"#))
        // Unregistered: shown with its reason.
        let removed = try server.request(
            "DELETE", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"], body: #"{"token":"\#(Self.token)"}"#)
        #expect(removed.status == 200)
        let after = try visitor.get("/dashboard/devices")
        #expect(after.text.contains(#"<span class="status-bad">deleted</span> · unregistered"#))
    }

    @Test func theFeedsPageShowsTheLoadedFeed() throws {
        let (server, visitor, _) = try Self.setUp()
        defer { server.stop() }
        let page = try visitor.get("/dashboard/feeds")
        #expect(page.status == 200)
        #expect(page.text.contains("<h1>Feeds</h1>"))
        #expect(page.text.contains("demo feed (rnv line 5)"))
        #expect(page.text.contains("<dt>stops</dt><dd>23</dd>"))
        #expect(page.text.contains("Not configured (LIVELINE_GTFS_RT_URL)"))
        #expect(page.text.contains(#"<a href="/dashboard/feeds" aria-current="page">Feeds</a>"#))
    }

    @Test func valuesFromOutsideAreShownAsTextNeverAsMarkup() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "<img src=x onerror=alert(1)>", name: "<script>alert(2)</script>")
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        #expect(try server.putTrip("trip:x", stop: "<script>alert(3)</script>' onmouseover='alert(4)").status == 201)
        let registered = try server.request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            body:
                #"{"kind":"la-update","token":"\#(Self.token)","device_id":"<b>phone</b>","context_key":"trip:x","attributes_type":"TripLiveActivityAttributes"}"#
        )
        #expect(registered.status == 200 || registered.status == 201)
        for path in ["/dashboard", "/dashboard/devices", "/dashboard/activities/trip:x"] {
            let page = try visitor.get(path).text
            for raw in ["<script>alert", "<img src=x", "<b>phone", "' onmouseover"] {
                #expect(!page.contains(raw), "\(path) has \(raw) as markup")
            }
        }
        #expect(try visitor.get("/dashboard/devices").text.contains("Household &lt;img src=x onerror=alert(1)&gt;"))
        #expect(try visitor.get("/dashboard/activities/trip:x").text.contains("&lt;script&gt;alert(3)&lt;/script&gt;&#39; onmouseover=&#39;alert(4)"))
    }

    @Test func aStreamWithoutAPageOrWithAnUnknownOneIsABadRequest() throws {
        let (server, visitor, _) = try Self.setUp()
        defer { server.stop() }
        #expect(try visitor.get("/dashboard/events").status == 400)
        #expect(try visitor.get("/dashboard/events?page=nothing").status == 400)
        #expect(try visitor.get("/dashboard/events?page=activity").status == 400)
    }
}
