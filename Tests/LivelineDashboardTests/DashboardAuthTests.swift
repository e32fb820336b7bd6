import Foundation
import LivelineTestSupport
import Testing

/// Sign-in, sessions and CSRF: nothing of the dashboard is reachable without signing in, a wrong
/// key is refused, a form without its CSRF token changes nothing, and the admin key never shows
/// in a page or an address.
@Suite struct DashboardAuthTests {
    /// Every page, stream and script of the dashboard (with a context to address).
    static let protectedGets = [
        "/dashboard", "/dashboard/", "/dashboard/devices", "/dashboard/check", "/dashboard/feeds", "/dashboard/activities/trip:1",
        "/dashboard/static/dashboard.js", "/dashboard/events?page=overview",
    ]
    static let protectedPosts = [
        "/dashboard/activities/trip:1/resend", "/dashboard/activities/trip:1/end", "/dashboard/check", "/dashboard/sign-out",
    ]

    @Test func nothingButTheSignInPageIsReachableWithoutASession() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        try server.putTrip("trip:1", stop: "Hbf")
        for path in Self.protectedGets {
            let response = try server.request("GET", path)
            #expect(response.status == 303 || response.status == 401, "\(path) answered \(response.status) without a session")
            #expect(!response.text.contains("trip:1") || response.status == 303, "\(path) showed data")
            if response.status == 303 { #expect(response.headers["location"] == "/dashboard/sign-in") }
        }
        for path in Self.protectedPosts {
            let response = try server.request(
                "POST", path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "csrf=x")
            #expect(response.status == 403, "\(path) answered \(response.status) without a session")
        }
        // A forged or tampered cookie is no session either.
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let real = try #require(visitor.cookies["liveline_session"])
        let tampered = String(real.dropLast(2)) + (real.hasSuffix("AA") ? "BB" : "AA")
        for cookie in [tampered, "v1.99999999999.nonce.mac", "", "garbage"] {
            let response = try server.request("GET", "/dashboard", headers: ["Cookie": "liveline_session=\(cookie)"])
            #expect(response.status == 303, "cookie \(cookie) was taken")
        }
        // Its context is untouched by the refused posts.
        #expect(try server.app.engine.context(key: "trip:1")?.rev == 1)
        #expect(try server.app.engine.context(key: "trip:1")?.state == .active)
        // The sign-in page and its stylesheet are what there is without one.
        #expect(try server.request("GET", "/dashboard/sign-in").status == 200)
        #expect(try server.request("GET", "/dashboard/static/dashboard.css").status == 200)
    }

    @Test func signingInWithTheAdminKeyOpensASessionCookie() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        let answer = try visitor.signIn()
        #expect(answer.status == 303)
        #expect(answer.headers["location"] == "/dashboard")
        let cookie = try #require(answer.setCookies.first { $0.hasPrefix("liveline_session=") })
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/dashboard", "Max-Age=43200"] {
            #expect(cookie.contains(attribute), "the session cookie lacks \(attribute): \(cookie)")
        }
        #expect(!cookie.contains("Secure"), "plain http: no Secure attribute (the browser would drop the cookie)")
        let overview = try visitor.get("/dashboard")
        #expect(overview.status == 200)
        #expect(overview.text.contains("<h1>Overview</h1>"))
        #expect(overview.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        #expect(overview.headers["x-frame-options"] == "DENY")
        // The key is in no page, no address and no cookie.
        for path in ["/dashboard", "/dashboard/devices", "/dashboard/check", "/dashboard/feeds"] {
            let page = try visitor.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(!page.text.contains(DashboardServer.adminKey), "\(path) shows the admin key")
        }
        #expect(!(answer.headers["location"] ?? "").contains(DashboardServer.adminKey))
        #expect(!visitor.cookieHeader.contains(DashboardServer.adminKey))
    }

    @Test func overHTTPSTheSessionCookieIsSecure() throws {
        let server = try DashboardServer { $0.publicURL = URL(string: "https://liveline.example.com") }
        defer { server.stop() }
        let answer = try DashboardVisitor(server).signIn()
        let cookie = try #require(answer.setCookies.first { $0.hasPrefix("liveline_session=") })
        #expect(cookie.contains("; Secure"))
        #expect(server.app.dashboardURL == "https://liveline.example.com/dashboard/")
    }

    @Test func aWrongKeyIsRefusedAndOpensNothing() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        for key in ["not-the-key", DashboardServer.adminKey + "x", String(DashboardServer.adminKey.dropLast()), ""] {
            let answer = try visitor.signIn(key: key)
            #expect(answer.status == 401 || (key.isEmpty && answer.status == 400), "key '\(key)' answered \(answer.status)")
            #expect(answer.text.contains("role=\"alert\""))
            #expect(!answer.setCookies.contains { $0.hasPrefix("liveline_session=") && !$0.contains("Max-Age=0") })
            #expect(!answer.text.contains(DashboardServer.adminKey))
        }
        #expect(visitor.cookies["liveline_session"] == nil)
        #expect(try visitor.get("/dashboard").status == 303)
    }

    @Test func wrongKeysCountAgainstTheAddressLikeTheAPIs() throws {
        let server = try DashboardServer { $0.authFailuresPerMinute = 3 }
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        for index in 0..<3 { #expect(try visitor.signIn(key: "wrong-key-\(index)").status == 401) }
        let limited = try visitor.signIn()
        #expect(limited.status == 429, "even the right key waits")
        #expect(limited.headers["retry-after"] != nil)
        #expect(limited.text.contains("failed authentications from this address"))
        #expect(visitor.cookies["liveline_session"] == nil)
        // The API's admin key from that address waits too: one count for both doors.
        #expect(try server.admin("GET", "/metrics").status == 429)
    }

    @Test func theSignInFormNeedsItsOwnCSRFToken() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        _ = try visitor.get("/dashboard/sign-in")
        // The right key, but no token, or a made-up one, or the token without its cookie.
        let page = try visitor.get("/dashboard/sign-in")
        let token = try #require(DashboardVisitor.csrf(in: page.text))
        #expect(try visitor.request("POST", "/dashboard/sign-in", form: ["key": DashboardServer.adminKey]).status == 403)
        #expect(try visitor.request("POST", "/dashboard/sign-in", form: ["key": DashboardServer.adminKey, "csrf": "forged"]).status == 403)
        let stranger = DashboardVisitor(server)
        #expect(try stranger.request("POST", "/dashboard/sign-in", form: ["key": DashboardServer.adminKey, "csrf": token]).status == 403)
        #expect(stranger.cookies["liveline_session"] == nil)
    }

    @Test func aFormWithoutItsCSRFTokenIsRefusedAndChangesNothing() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        try server.putTrip("trip:7", stop: "Hbf")
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let page = try visitor.get("/dashboard/activities/trip:7")
        let token = try #require(DashboardVisitor.csrf(in: page.text))
        // Another session's token is not this one's.
        let other = DashboardVisitor(server)
        try other.signIn()
        let othersToken = try #require(DashboardVisitor.csrf(in: try other.get("/dashboard").text))
        #expect(othersToken != token)
        for form in [[:], ["csrf": ""], ["csrf": "bm90LWEtdG9rZW4"], ["csrf": othersToken]] {
            for action in ["resend", "end"] {
                let answer = try visitor.request("POST", "/dashboard/activities/trip:7/\(action)", form: form)
                #expect(answer.status == 403, "\(action) with \(form) answered \(answer.status)")
                #expect(answer.text.contains("Nothing was changed"))
            }
        }
        #expect(try server.app.engine.context(key: "trip:7")?.rev == 1)
        #expect(try server.app.engine.context(key: "trip:7")?.state == .active)
        // With its token the same form works.
        let resent = try visitor.request("POST", "/dashboard/activities/trip:7/resend", form: ["csrf": token])
        #expect(resent.status == 303)
        #expect(try server.app.engine.context(key: "trip:7")?.rev == 2)
    }

    @Test func signingOutEndsTheSession() throws {
        let server = try DashboardServer()
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        let cookie = try #require(visitor.cookies["liveline_session"])
        let token = try #require(DashboardVisitor.csrf(in: try visitor.get("/dashboard").text))
        let out = try visitor.request("POST", "/dashboard/sign-out", form: ["csrf": token])
        #expect(out.status == 303)
        #expect(out.headers["location"] == "/dashboard/sign-in")
        #expect(visitor.cookies["liveline_session"] == nil, "the cookie is cleared")
        // The old cookie, kept by someone, is no session any more.
        #expect(try server.request("GET", "/dashboard", headers: ["Cookie": "liveline_session=\(cookie)"]).status == 303)
    }

    @Test func aOneTimeLinkSignsInOnceAndLeavesNoSecretInTheAddress() throws {
        // The link names the address the server listens on.
        let server = try DashboardServer(.live)
        defer { server.stop() }
        let link = server.app.dashboardSignInLink()
        #expect(link.hasPrefix("http://127.0.0.1:\(try server.port)/dashboard/sign-in?once="))
        #expect(!link.contains(DashboardServer.adminKey))
        let path = String(link.dropFirst("http://127.0.0.1:\(try server.port)".count))
        // Opening the link (a preview, a link scanner) spends nothing: it is a page with a button.
        let preview = try DashboardVisitor(server).get(path)
        #expect(preview.status == 200)
        #expect(preview.text.contains("Sign in with this link"))
        #expect(!preview.setCookies.contains { $0.hasPrefix("liveline_session=") })
        let visitor = DashboardVisitor(server)
        let page = try visitor.get(path)
        let once = try #require(page.text.firstMatch(of: /name="once" value="([^"]+)"/)).1
        let csrf = try #require(DashboardVisitor.csrf(in: page.text))
        // Its button needs the page's CSRF token like every form.
        #expect(try DashboardVisitor(server).request("POST", "/dashboard/sign-in", form: ["once": String(once)]).status == 403)
        let first = try visitor.request("POST", "/dashboard/sign-in", form: ["csrf": csrf, "once": String(once)])
        #expect(first.status == 303)
        #expect(first.headers["location"] == "/dashboard", "after sign-in the address holds no token")
        #expect(try visitor.get("/dashboard").status == 200)
        // A second use, by anyone, is refused; so is a made-up one.
        for token in [String(once), "made-up"] {
            let stranger = DashboardVisitor(server)
            let form = try stranger.get("/dashboard/sign-in?once=\(token)")
            let again = try stranger.request("POST", "/dashboard/sign-in", form: ["csrf": DashboardVisitor.csrf(in: form.text) ?? "", "once": token])
            #expect(again.status == 401)
            #expect(again.text.contains("used already or has expired"))
            #expect(stranger.cookies["liveline_session"] == nil)
        }
    }

    @Test func aSessionExpiresAfterTwelveHours() throws {
        let clock = ManualClock(Date())
        let server = try DashboardServer(clock: clock)
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        try visitor.signIn()
        clock.advance(by: 12 * 3600 - 60)
        #expect(try visitor.get("/dashboard").status == 200)
        clock.advance(by: 61)
        #expect(try visitor.get("/dashboard").status == 303, "an expired session is none")
        #expect(try visitor.get("/dashboard/events?page=overview").status == 401)
    }

    @Test func sessionsExpireByRealTimeHoweverFastTheServersClockRuns() throws {
        // A demo runs its server's clock faster than real time; a person's sign-in does not age with it.
        let clock = ManualClock(Date())
        let server = try DashboardServer(clock: clock, sessionsOnRealTime: true)
        defer { server.stop() }
        let visitor = DashboardVisitor(server)
        let link = server.app.dashboardSignInLink()
        clock.advance(by: 2 * 3600)
        // The link's path (the address it starts with is the listening one's, of a live server).
        let page = try visitor.get(String(link[try #require(link.firstRange(of: "/dashboard/sign-in?once=")).lowerBound...]))
        let once = try #require(page.text.firstMatch(of: /name="once" value="([^"]+)"/)).1
        let csrf = try #require(DashboardVisitor.csrf(in: page.text))
        #expect(try visitor.request("POST", "/dashboard/sign-in", form: ["csrf": csrf, "once": String(once)]).status == 303)
        clock.advance(by: 24 * 3600)
        #expect(try visitor.get("/dashboard").status == 200)
    }

    @Test func aSignedOutSessionStaysSignedOutAfterARestart() throws {
        let first = try DashboardServer()
        let visitor = DashboardVisitor(first)
        try visitor.signIn()
        let cookie = try #require(visitor.cookies["liveline_session"])
        let keeper = DashboardVisitor(first)
        try keeper.signIn()
        let token = try #require(DashboardVisitor.csrf(in: try visitor.get("/dashboard").text))
        #expect(try visitor.request("POST", "/dashboard/sign-out", form: ["csrf": token]).status == 303)
        first.stop(keepData: true)
        // Another instance (here: the next start) on the same database refuses it too.
        let second = try DashboardServer(folder: first.folder)
        defer { second.stop() }
        #expect(try second.request("GET", "/dashboard", headers: ["Cookie": "liveline_session=\(cookie)"]).status == 303)
        // A session that was not signed out goes on working across the restart.
        #expect(try second.request("GET", "/dashboard", headers: ["Cookie": keeper.cookieHeader]).status == 200)
    }
}
