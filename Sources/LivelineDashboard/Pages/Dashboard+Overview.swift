import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

extension Dashboard {
    /// `/dashboard`: activities by type and state, the outbox, dead letters, suspect start
    /// tokens, pushes of the last hour by outcome, the newest activities, and what the in-process
    /// APNs sandbox accepted.
    func overview(now: Date) throws -> PageContent {
        let counts = try reads.activityCounts()
        let depth = try engine.outboxDepth()
        let suspect = try engine.suspectStartTokens()
        let types = Array(Set(counts.map(\.activityType))).sorted()
        let byType: [[HTML]] = types.map { type in
            let active = counts.first { $0.activityType == type && $0.state == .active }?.count ?? 0
            let ended = counts.first { $0.activityType == type && $0.state == .ended }?.count ?? 0
            return ["\(type)", "<span class=\"num\">\(active)</span>", "<span class=\"num\">\(ended)</span>"]
        }
        let oldest = depth.oldestDueAge.map { "\(Int($0.rounded())) s" } ?? "none waiting"
        var main: HTML = "<h1>Overview</h1>\n"
        main += "<div class=\"grid\">"
        main += "<section class=\"panel\" aria-labelledby=\"h-activities\"><h2 id=\"h-activities\">Activities</h2>"
        main += Markup.table(
            caption: "Contexts by activity type and state", columns: ["type", "active", "ended"], rows: byType, empty: "No activities yet.")
        main += "</section>"
        main += "<section class=\"panel\" aria-labelledby=\"h-outbox\"><h2 id=\"h-outbox\">Outbox</h2>"
        main += Markup.facts(
            [
                ("due", "\(depth.due)"), ("being sent", "\(depth.leased)"), ("oldest due waits", "\(oldest)"),
                ("dead letters", "\(depth.dead)"), ("suspect start tokens", "\(suspect)"),
            ], warnings: Set((depth.dead > 0 ? ["dead letters"] : []) + (suspect > 0 ? ["suspect start tokens"] : [])))
        main += "<p class=\"note\">Pushes go to the \(configuration.apnsDescription).</p></section>"
        main += "</div>"
        main += try pushChart(now: now)
        main += try activityList(now: now)
        main += try deadLetters(now: now)
        main += sandboxRecord(now: now)
        return PageContent(title: "Overview", main: main, events: "/dashboard/events?page=overview")
    }

    /// Pushes of the last hour in 5-minute slots of the clock (the last one under way), by
    /// outcome, as bars (and as a table for those who do not see the bars): accepted is any 2xx
    /// (``DeliveryVerdict``: APNs' 200, a push service's 201). A broadcast channel's deletion is
    /// channel management, not a push: it is counted on a line of its own.
    func pushChart(now: Date) throws -> HTML {
        let slots = PushChartCounts.slots
        let slotSeconds = PushChartCounts.slotSeconds
        let (since, outcomes) = try pushCounts.counts(now: now, read: reads.deliveryOutcomes(since:slotSeconds:))
        var accepted = [Int](repeating: 0, count: slots)
        var refused = [Int](repeating: 0, count: slots)
        var unanswered = [Int](repeating: 0, count: slots)
        var deletions: [DeliveryVerdict: Int] = [:]
        for outcome in outcomes where (0..<slots).contains(outcome.slot) {
            if outcome.channelDeletion {
                deletions[outcome.verdict, default: 0] += outcome.count
                continue
            }
            switch outcome.verdict {
            case .accepted: accepted[outcome.slot] += outcome.count
            case .unanswered: unanswered[outcome.slot] += outcome.count
            case .refused: refused[outcome.slot] += outcome.count
            }
        }
        let total = accepted.reduce(0, +) + refused.reduce(0, +) + unanswered.reduce(0, +)
        let peak = max(1, (0..<slots).map { accepted[$0] + refused[$0] + unanswered[$0] }.max() ?? 1)
        let width = 600
        let height = 140
        let bar = width / slots
        var bars: HTML = ""
        for slot in 0..<slots {
            var top = height
            for (value, fill) in [(accepted[slot], "fill-accepted"), (refused[slot], "fill-refused"), (unanswered[slot], "fill-noanswer")]
            where value > 0 {
                let h = max(1, value * (height - 10) / peak)
                top -= h
                bars += "<rect class=\(Markup.quoted(fill)) x=\"\(slot * bar + 4)\" y=\"\(top)\" width=\"\(bar - 8)\" height=\"\(h)\"></rect>"
            }
        }
        let summary =
            "\(total) pushes in the last hour: \(accepted.reduce(0, +)) accepted, \(refused.reduce(0, +)) refused, \(unanswered.reduce(0, +)) without an answer"
        var rows: [[HTML]] = []
        for slot in 0..<slots where accepted[slot] + refused[slot] + unanswered[slot] > 0 {
            let start = since.addingTimeInterval(Double(slot * slotSeconds))
            rows.append(["\(Markup.clock(start))", "\(accepted[slot])", "\(refused[slot])", "\(unanswered[slot])"])
        }
        let management: HTML =
            deletions.isEmpty
            ? ""
            : "<p class=\"note\" id=\"channel-management\">Broadcast channels deleted through APNs's channel management API, not counted "
                + "as pushes: \(deletions[.accepted] ?? 0) accepted, \(deletions[.refused] ?? 0) refused, \(deletions[.unanswered] ?? 0) without an answer.</p>"
        return """
            <section class="panel chart" aria-labelledby="h-pushes"><h2 id="h-pushes">Pushes of the last hour</h2>
            <p id="push-summary">\(summary)</p>
            <svg viewBox="0 0 \(width) \(height + 22)" role="img" aria-label=\(Markup.quoted(summary + ", in 5-minute slots"))>\(bars)<line x1="0" y1="\(height)" x2="\(width)" y2="\(height)" stroke="#86868b"></line><text x="0" y="\(height + 17)" class="axis">an hour ago</text><text x="\(width)" y="\(height + 17)" class="axis" text-anchor="end">now</text></svg>
            <ul class="legend"><li><span class="swatch fill-accepted"></span>accepted (2xx)</li><li><span class="swatch fill-refused"></span>refused (4xx, 5xx)</li><li><span class="swatch fill-noanswer"></span>no answer</li></ul>
            <details><summary>The numbers</summary>\(Markup.table(caption: "Pushes per 5 minutes", columns: ["from", "accepted", "refused", "no answer"], rows: rows, empty: "No pushes in the last hour."))</details>
            \(management)</section>
            """
    }

    /// The newest activities, each linking to its page.
    func activityList(now: Date) throws -> HTML {
        let contexts = try reads.recentContexts(limit: 50)
        let rows: [[HTML]] = contexts.map { context in
            [
                "<a href=\(Markup.quoted(Markup.activityPath(context.key)))>\(context.key)</a>", "\(context.activityType)",
                context.state == .active ? "<span class=\"status-ok\">active</span>" : "ended", "\(context.rev)",
                Markup.time(context.updatedAt, now: now),
            ]
        }
        return "<section class=\"panel\" aria-labelledby=\"h-list\"><h2 id=\"h-list\">Activities, newest first</h2>"
            + Markup.table(
                caption: "The 50 most recently changed contexts", columns: ["key", "type", "state", "rev", "changed"], rows: rows,
                empty: "No activities yet: create one with PUT /v1/contexts/{key} or through a feature.")
            + "</section>"
    }

    func deadLetters(now: Date) throws -> HTML {
        let letters = try reads.recentDeadLetters(limit: 10)
        guard !letters.isEmpty else { return "" }
        let rows: [[HTML]] = letters.map { letter in
            [
                letter.contextKey.map { "<a href=\(Markup.quoted(Markup.activityPath($0)))>\($0)</a>" } ?? "\(letter.kind)",
                "\(letter.reason ?? "")", Markup.time(letter.at, now: now),
            ]
        }
        return "<section class=\"panel\" aria-labelledby=\"h-dead\"><h2 id=\"h-dead\">Dead letters</h2>"
            + Markup.table(caption: "The newest outbox rows given up on", columns: ["context", "reason", "when"], rows: rows, empty: "")
            + "</section>"
    }

    /// What the in-process APNs sandbox accepted (when the server pushes to one).
    func sandboxRecord(now: Date) -> HTML {
        guard let record = configuration.sandboxRecord else { return "" }
        // The sandbox's times are real time (the server's clock may run a demo faster).
        let realNow = wallClock()
        let rows: [[HTML]] = record.newest(15).map { push in
            [
                Markup.time(push.acceptedAt, now: realNow), "\(push.pushType)", "\(push.event ?? "")", "\(push.priority)",
                "<code>\(push.tokenPrefix ?? push.channelID.map { "channel \($0)" } ?? "")</code>", "\(push.bytes)", "<code>\(push.apnsID)</code>",
            ]
        }
        return """
            <section class="panel" aria-labelledby="h-sandbox"><h2 id="h-sandbox">APNs sandbox</h2>
            <p>No APNs key is configured, so pushes go to the in-process APNs sandbox, this server's own APNs for testing: it accepts the tokens registered with this server and answers everything else as APNs does. \(record.total) pushes accepted since the server started (the newest \(record.capacity) are kept; also at <code>GET /v1/sandbox/accepted</code> with the admin key).</p>
            \(Markup.table(caption: "The newest accepted pushes", columns: ["accepted", "push type", "event", "priority", "token", "bytes", "apns-id"], rows: rows, empty: "Nothing accepted yet."))
            </section>
            """
    }

    // MARK: Live updates

    /// `/dashboard/events?page=…`: the stream of a page's main part (see ``LiveUpdates``).
    func events(_ request: HTTPRequest) throws -> HTTPResponse {
        try signedIn(request) { session in
            let render: @Sendable (Date) throws -> PageContent
            // How often each page is read again, in ticks: an activity's card moves by the second;
            // the token list is the costliest read and changes least.
            let every: Double
            switch request.query["page"] {
            case "overview":
                render = { [self] now in try overview(now: now) }
                every = 2
            case "devices":
                render = { [self] now in try devicesPage(now: now) }
                every = 10
            case "contracts":
                render = { [self] now in try contractsPage(now: now) }
                every = 10
            case "activity":
                guard let key = request.query["key"], !key.isEmpty else {
                    throw HTTPError.badRequest("the activity's stream needs ?key=", field: "key")
                }
                let csrf = sessions.csrfToken(for: session)
                render = { [self] now in try activityPage(key: key, now: now, csrf: csrf, notice: nil) }
                every = 1
            case let slug?:
                guard let panel = configuration.panels.first(where: { $0.slug == slug }) else {
                    throw HTTPError.badRequest(
                        "no page '\(slug)' to follow; pages: overview, devices, contracts, activity, \(configuration.panels.map(\.slug).joined(separator: ", "))",
                        field: "page")
                }
                render = { [self] now in try panelPage(panel, now: now) }
                every = 5
            case nil:
                throw HTTPError.badRequest(
                    "which page to follow: ?page=overview, devices, contracts, activity&key=… or a feature's page", field: "page")
            }
            let stream = EventStream()
            let cookie = FormCoding.cookies(request.headers["cookie"])[DashboardSessions.sessionCookie]
            live.watch(stream, every: every * live.tick) { [self] in
                // A session that ended (expired, signed out here) ends its streams.
                guard sessions.session(cookie: cookie) != nil else { return nil }
                do {
                    return try render(clock()).main.raw
                } catch {
                    return "<p class=\"message error\" role=\"alert\">\(HTML(text: "This page could not be read: \(error)"))</p>"
                }
            }
            return .events(stream)
        }
    }
}
