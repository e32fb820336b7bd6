import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineLog
import LivelineModel
import LivelineStore

/// What the dashboard is built with.
public struct DashboardConfiguration: Sendable {
    /// The admin key: what signs a person in (and what the session cookies are signed with).
    public var adminKey: String
    /// Session cookies are `Secure` (the server is reached over https: `LIVELINE_PUBLIC_URL`).
    public var secureCookies: Bool
    /// Pages the features add (transit's feeds).
    public var panels: [DashboardPanel]
    /// What the in-process APNs sandbox accepted, when the server pushes to one.
    public var sandboxRecord: SandboxRecord?
    /// Where pushes go, for a person.
    public var apnsDescription: String
    /// How often an open page looks for changes.
    public var liveInterval: TimeInterval
    /// Wrong keys count against the client's address like the API's failed authentications.
    public var signInLimiter: AuthFailureLimiter

    public init(
        adminKey: String, secureCookies: Bool = false, panels: [DashboardPanel] = [], sandboxRecord: SandboxRecord? = nil,
        apnsDescription: String = "",
        liveInterval: TimeInterval = 1, signInLimiter: AuthFailureLimiter = AuthFailureLimiter(perMinute: 0)
    ) {
        self.signInLimiter = signInLimiter
        self.adminKey = adminKey
        self.secureCookies = secureCookies
        self.panels = panels
        self.sandboxRecord = sandboxRecord
        self.apnsDescription = apnsDescription
        self.liveInterval = liveInterval
    }
}

/// The web dashboard at `/dashboard` (docs/operations.md, "The dashboard"): served by the server itself,
/// HTML and CSS it ships and a little script for live updates over Server-Sent Events; every
/// page works without the script by reloading. Everything but the sign-in page and its
/// stylesheet needs a signed-in session; every form carries a CSRF token. It reads through the
/// store's read-only views and changes things only through the engine (resend, end).
public final class Dashboard: Sendable {
    /// The path every route of the dashboard is under.
    public static let prefix = "/dashboard"
    /// An activity's page.
    static let activityRoute = Route(.get, "/dashboard/activities/{key}")

    let engine: Engine
    let reads: OperationsReads
    let configuration: DashboardConfiguration
    let sessions: DashboardSessions
    let live: LiveUpdates
    /// The overview's push counts, kept across renders.
    let pushCounts = PushChartCounts()
    /// The server's clock: what pages show times against.
    let clock: @Sendable () -> Date
    /// Real time: what sessions expire by, and the in-process sandbox's times are in.
    let wallClock: @Sendable () -> Date
    let logger: Logger

    /// The dashboard of `engine`, reading through `database` (the engine's, read-only but for
    /// the dashboard's own sign-out table).
    public init(
        engine: Engine, database: any Database, configuration: DashboardConfiguration, clock: @escaping @Sendable () -> Date,
        wallClock: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.wallClock = wallClock
        self.engine = engine
        self.reads = OperationsReads(database: database)
        self.configuration = configuration
        self.sessions = DashboardSessions(
            adminKey: configuration.adminKey, revocations: DashboardRevocationRepository(database: database), clock: wallClock)
        self.live = LiveUpdates(tick: configuration.liveInterval)
        self.clock = clock
        self.logger = logger
    }

    /// A one-time sign-in address (path and query), good for one sign-in within an hour: what
    /// `liveline demo` prints. It holds no key.
    public func oneTimeSignInPath() -> String {
        "\(Self.prefix)/sign-in?once=\(sessions.oneTimeLinkToken())"
    }

    /// Ends every open live stream (the server is stopping).
    public func stop() { live.stop() }

    /// The navigation: the core pages, then the features'.
    var navigation: [(path: String, title: String)] {
        [
            ("/dashboard", "Overview"), ("/dashboard/devices", "Devices and tokens"), ("/dashboard/contracts", "Contracts"),
            ("/dashboard/check", "Payload check"),
        ]
            + configuration.panels.map { ("/dashboard/\($0.slug)", $0.title) }
    }

    public func addRoutes(to router: inout Router) {
        router.add(Route(.get, "/dashboard/static/dashboard.css")) { _ in
            HTTPResponse(
                status: 200, headers: Layout.headers(contentType: "text/css; charset=utf-8"), body: .bytes(Array(DashboardAssets.stylesheet.utf8)))
        }
        router.add(Route(.get, "/dashboard/static/dashboard.js")) { [self] request in
            try signedIn(request) { _ in
                HTTPResponse(
                    status: 200, headers: Layout.headers(contentType: "text/javascript; charset=utf-8"),
                    body: .bytes(Array(DashboardAssets.script.utf8)))
            }
        }
        router.add(Route(.get, "/dashboard/sign-in")) { [self] request in signInPage(request) }
        router.add(Route(.post, "/dashboard/sign-in")) { [self] request in signIn(request) }
        router.add(Route(.post, "/dashboard/sign-out")) { [self] request in
            try form(request) { session, _ in
                try sessions.revoke(session)
                var response = redirect(to: "/dashboard/sign-in")
                response.headers.add("Set-Cookie", cookie(DashboardSessions.sessionCookie, "", maxAge: 0))
                return response
            }
        }
        router.add(Route(.get, "/dashboard")) { [self] request in try page(request, current: "/dashboard") { now, _ in try overview(now: now) } }
        router.add(Route(.get, "/dashboard/devices")) { [self] request in
            try page(request, current: "/dashboard/devices") { now, _ in try devicesPage(now: now) }
        }
        router.add(Route(.get, "/dashboard/contracts")) { [self] request in
            try page(request, current: "/dashboard/contracts") { now, _ in try contractsPage(now: now) }
        }
        router.add(Self.activityRoute) { [self] request in
            let key = try request.parameter("key")
            return try page(request, current: "") { now, csrf in try activityPage(key: key, now: now, csrf: csrf, notice: request.query["done"]) }
        }
        router.add(Route(.post, "/dashboard/activities/{key}/resend")) { [self] request in
            let key = try request.parameter("key")
            return try form(request) { _, _ in HTTPRequest.isContextKey(key) ? try resend(key: key) : noSuchActivity(key) }
        }
        router.add(Route(.post, "/dashboard/activities/{key}/end")) { [self] request in
            let key = try request.parameter("key")
            return try form(request) { _, _ in HTTPRequest.isContextKey(key) ? try end(key: key) : noSuchActivity(key) }
        }
        router.add(Route(.get, "/dashboard/check")) { [self] request in
            try page(request, current: "/dashboard/check") { _, csrf in checkPage(csrf: csrf, fields: [:], report: nil) }
        }
        router.add(Route(.post, "/dashboard/check")) { [self] request in
            try form(request) { session, fields in
                let report = check(fields)
                return render(
                    checkPage(csrf: sessions.csrfToken(for: session), fields: fields, report: report), current: "/dashboard/check",
                    session: session)
            }
        }
        for panel in configuration.panels {
            router.add(Route(.get, "/dashboard/\(panel.slug)")) { [self] request in
                try page(request, current: "/dashboard/\(panel.slug)") { now, _ in try panelPage(panel, now: now) }
            }
        }
        router.add(Route(.get, "/dashboard/events")) { [self] request in try events(request) }
    }

    // MARK: Sessions, pages, forms

    /// The session of the request's cookie, if signed in.
    func session(of request: HTTPRequest) -> DashboardSessions.Session? {
        sessions.session(cookie: FormCoding.cookies(request.headers["cookie"])[DashboardSessions.sessionCookie])
    }

    /// Runs `body` for a signed-in request; else a 401 (what a script or a stream gets).
    func signedIn(_ request: HTTPRequest, _ body: (DashboardSessions.Session) throws -> HTTPResponse) throws -> HTTPResponse {
        guard let session = session(of: request) else {
            return HTTPResponse(
                status: 401, headers: Layout.headers(contentType: "text/plain; charset=utf-8"),
                body: .bytes(Array("sign in at /dashboard/sign-in\n".utf8)))
        }
        return try body(session)
    }

    /// A page for a signed-in person; without a session, the way to the sign-in page.
    func page(_ request: HTTPRequest, current: String, _ content: (Date, String) throws -> PageContent) throws -> HTTPResponse {
        guard let session = session(of: request) else { return redirect(to: "/dashboard/sign-in") }
        return render(try content(clock(), sessions.csrfToken(for: session)), current: current, session: session)
    }

    func render(_ content: PageContent, current: String, session: DashboardSessions.Session) -> HTTPResponse {
        let html = Layout.page(content, current: current, navigation: navigation, csrf: sessions.csrfToken(for: session))
        return HTTPResponse(status: content.status, headers: Layout.headers(), body: .bytes(Array(html.raw.utf8)))
    }

    /// A form sent by a signed-in person with the session's CSRF token; else 403 and nothing done.
    func form(_ request: HTTPRequest, _ body: (DashboardSessions.Session, [String: String]) throws -> HTTPResponse) throws -> HTTPResponse {
        guard let session = session(of: request) else {
            return message(status: 403, title: "Signed out", text: "This form needs a signed-in session: sign in again and repeat it.")
        }
        guard let fields = FormCoding.fields(request.body) else {
            return message(status: 400, title: "Bad form", text: "The form's body is not valid URL-encoded UTF-8.")
        }
        guard sessions.checkCSRF(fields["csrf"], session: session) else {
            logger.warning("dashboardFormRefused", [("path", .string(request.path)), ("reason", "missing or wrong CSRF token")])
            return message(
                status: 403, title: "Form refused",
                text:
                    "The form did not carry this session's CSRF token (an old page, or a form sent from elsewhere). Nothing was changed; reload the page and try again."
            )
        }
        return try body(session, fields)
    }

    /// A small page that says one thing (an error the person can act on).
    func message(status: Int, title: String, text: String) -> HTTPResponse {
        let html: HTML = """
            \(Layout.head(title: title, script: false))
            <body><main class="signin" id="live"><h1>\(title)</h1><p class="message error" role="alert">\(text)</p>
            <p><a href="/dashboard">Back to the dashboard</a></p></main></body></html>
            """
        return HTTPResponse(status: status, headers: Layout.headers(), body: .bytes(Array(html.raw.utf8)))
    }

    func redirect(to path: String) -> HTTPResponse {
        var headers = Layout.headers(contentType: "text/plain; charset=utf-8")
        headers.add("Location", path)
        return HTTPResponse(status: 303, headers: headers, body: .bytes(Array("see \(path)\n".utf8)))
    }

    /// A `Set-Cookie` value: HttpOnly, SameSite=Strict, on the dashboard's path; Secure over https.
    func cookie(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=/dashboard; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (configuration.secureCookies ? "; Secure" : "")
    }

    // MARK: Sign-in

    /// The sign-in form; with `?once=` (a one-time link), a page whose button signs in with it.
    /// Opening the link spends nothing: a preview or a link scanner that fetches it signs nobody
    /// in, and the button's POST is same-site, so the session cookie comes along after it.
    func signInPage(_ request: HTTPRequest) -> HTTPResponse {
        if session(of: request) != nil { return redirect(to: "/dashboard") }
        return signInForm(message: nil, status: 200, once: request.query["once"])
    }

    func signInForm(message: String?, status: Int, once: String? = nil) -> HTTPResponse {
        let form = sessions.signInForm()
        var headers = Layout.headers()
        headers.add("Set-Cookie", cookie(DashboardSessions.signInCookie, form.cookie, maxAge: Int(DashboardSessions.signInFormLifetime)))
        let html = Layout.signIn(token: form.token, message: message, once: once)
        return HTTPResponse(status: status, headers: headers, body: .bytes(Array(html.raw.utf8)))
    }

    func signIn(_ request: HTTPRequest) -> HTTPResponse {
        guard let fields = FormCoding.fields(request.body) else {
            return signInForm(message: "The form's body is not valid URL-encoded UTF-8.", status: 400)
        }
        let formCookie = FormCoding.cookies(request.headers["cookie"])[DashboardSessions.signInCookie]
        guard sessions.checkSignInForm(cookie: formCookie, token: fields["csrf"]) else {
            logger.warning("dashboardFormRefused", [("path", .string(request.path)), ("reason", "missing or wrong CSRF token")])
            return signInForm(
                message: "The sign-in form had expired or did not come from this page. Nothing was done; try again.", status: 403,
                once: fields["once"])
        }
        if let once = fields["once"] {
            guard sessions.redeem(oneTimeToken: once) else {
                logger.warning("dashboardSignInRefused", [("reason", "one-time link used or expired")])
                return signInForm(message: "That sign-in link was used already or has expired: sign in with the admin key.", status: 401)
            }
            logger.info("dashboardSignedIn", [("by", "one-time link")])
            return signedInRedirect()
        }
        guard let key = fields["key"], !key.isEmpty else { return signInForm(message: "Enter the admin key.", status: 400) }
        do {
            try configuration.signInLimiter.check(request)
        } catch let error as HTTPError {
            logger.warning("dashboardSignInRefused", [("reason", "too many failed sign-ins from the address")])
            var answer = signInForm(message: error.message, status: 429)
            for (name, value) in error.headers { answer.headers.add(name, value) }
            return answer
        } catch {}
        guard sessions.isAdminKey(key) else {
            // Never the key itself: only that one was wrong.
            configuration.signInLimiter.failed(request, credential: key)
            logger.warning("dashboardSignInRefused", [("reason", "not the admin key")])
            return signInForm(message: "That is not the admin key.", status: 401)
        }
        logger.info("dashboardSignedIn", [("by", "admin key")])
        return signedInRedirect()
    }

    /// A new session, its cookie, and the way to the overview (the address holds no secret).
    func signedInRedirect() -> HTTPResponse {
        let (_, value) = sessions.open()
        var response = redirect(to: "/dashboard")
        response.headers.add("Set-Cookie", cookie(DashboardSessions.sessionCookie, value, maxAge: Int(DashboardSessions.lifetime)))
        response.headers.add("Set-Cookie", cookie(DashboardSessions.signInCookie, "", maxAge: 0))
        return response
    }
}
