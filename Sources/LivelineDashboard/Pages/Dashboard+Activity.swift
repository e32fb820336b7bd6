import Foundation
import LivelineAPI
import LivelineCards
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

extension Dashboard {
    /// `/dashboard/activities/{key}`: the card as the phone draws it, from the current state; each
    /// device with the revision it was sent and the one it acknowledged; the budget used this
    /// hour; the timeline; the actions "resend the current state" and "end".
    func activityPage(key: String, now: Date, csrf: String, notice: String?) throws -> PageContent {
        guard HTTPRequest.isContextKey(key), case .changed(let context, let contentState)? = try engine.snapshot(key: key, sinceRev: nil) else {
            return PageContent(
                title: "No such activity",
                main:
                    "<h1>No such activity</h1><p class=\"message error\" role=\"alert\">There is no context \(key).</p><p><a href=\"/dashboard\">Back to the overview</a></p>",
                events: nil, status: 404)
        }
        let path = Markup.activityPath(key)
        var main: HTML = "<h1>\(key)</h1>\n"
        if let notice = Self.notices[notice ?? ""] { main += "<p class=\"message\" role=\"status\">\(notice)</p>" }
        main += Markup.facts([
            ("type", "\(context.activityType)"), ("state", context.state == .active ? "active" : "ended"), ("revision", "\(context.rev)"),
            ("started", Markup.time(context.startedAt, now: now)),
            ("ends at the latest", Markup.time(context.deadlineAt, now: now)),
        ])
        main += card(context, contentState: contentState, now: now)
        main += try devices(context, now: now)
        main += try budget(context, now: now)
        if context.state == .active {
            main += """
                <section class="panel" aria-labelledby="h-actions"><h2 id="h-actions">Actions</h2>
                <form class="inline" method="post" action=\(Markup.quoted(path + "/resend"))><input type="hidden" name="csrf" value=\(Markup.quoted(csrf))><button type="submit">Resend the current state</button></form>
                <form class="inline" method="post" action=\(Markup.quoted(path + "/end"))><input type="hidden" name="csrf" value=\(Markup.quoted(csrf))><button class="danger" type="submit">End the activity</button></form>
                <p class="note">Resending records a new revision with the same state, pushed to every device as a full snapshot; ending sends the final state as the end event.</p>
                </section>
                """
        }
        main += try timeline(key: key, now: now)
        return PageContent(
            title: key, main: main,
            events: "/dashboard/events?page=activity&key=\(key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key)")
    }

    static let notices = [
        "resent": "The current state was recorded as a new revision and queued for every device.",
        "ended": "The activity was ended; its devices get the final state.",
        "already-ended": "The activity had ended already; nothing changed.",
    ]

    /// The card: the lock screen and the Dynamic Island, compact and expanded.
    func card(_ context: ContextRecord, contentState: JSONValue, now: Date) -> HTML {
        let phase: CardPhase = context.state == .ended ? .ended : .active
        guard
            let card = CardRenderer.render(
                attributesType: context.activityType, attributes: Data(context.attributes.utf8), contentState: contentState.compactJSON, phase: phase,
                registry: engine.contracts)
        else {
            return """
                <section class="panel" aria-labelledby="h-card"><h2 id="h-card">Card</h2>
                <p class="note">No drawing for \(context.activityType): its state, as the app receives it:</p>
                <pre>\(String(decoding: contentState.compactJSON, as: UTF8.self))</pre></section>
                """
        }
        let lockLines = HTML.join(card.lockScreen.split(separator: "\n").map { "<p>\(String($0))</p>" })
        return """
            <section class="panel" aria-labelledby="h-card"><h2 id="h-card">Card</h2>
            <div class="cards">
            <figure><figcaption>Lock screen</figcaption><div class="lock" data-card="lock-screen">\(lockLines)</div></figure>
            <figure><figcaption>Dynamic Island, compact</figcaption><div class="island compact" data-card="compact"><span>\(card.compactLeading)</span><span>\(card.compactTrailing)</span></div></figure>
            <figure><figcaption>Dynamic Island, expanded</figcaption><div class="island expanded" data-card="expanded">\(card.expanded)</div></figure>
            </div>
            <p class="note">Drawn from revision \(context.rev), the state the server sends now.</p>
            </section>
            """
    }

    /// Each device: the revision it was sent and the one it acknowledged.
    func devices(_ context: ContextRecord, now: Date) throws -> HTML {
        let devices = try reads.devices(contextKey: context.key)
        let channelRev = try reads.channelSentRev(contextKey: context.key)
        var rows: [[HTML]] = devices.map { device in
            let behind = (device.acknowledgedRev ?? -1) < context.rev
            return [
                "\(device.deviceID)", "\(device.userName ?? "")",
                device.tokenPrefix.map { "<code>\($0)</code> \(device.tokenStatus ?? "")" } ?? "none",
                "\(device.sentRev.map(String.init) ?? "—")",
                behind
                    ? "<span class=\"status-bad\">\(device.acknowledgedRev.map(String.init) ?? "—")</span>"
                    : "<span class=\"status-ok\">\(device.acknowledgedRev ?? 0)</span>",
                "\(device.startStatus ?? "")",
            ]
        }
        if let channelRev {
            rows.append(["broadcast channel", "", "", "\(channelRev)", "", ""])
        }
        return "<section class=\"panel\" aria-labelledby=\"h-devices\"><h2 id=\"h-devices\">Devices</h2>"
            + Markup.table(
                caption: "Revision \(context.rev) is current",
                columns: ["device", "user", "update token", "rev sent", "rev acknowledged", "push-to-start"],
                rows: rows, empty: "No device follows this activity yet.")
            + "</section>"
    }

    /// The priority-10 budget used this hour, by target, against the type's budget.
    func budget(_ context: ContextRecord, now: Date) throws -> HTML {
        let ledger = try reads.priorityLedger(contextKey: context.key, since: now.addingTimeInterval(-3600))
        let limit = engine.configuration.priorityBudget(type: context.activityType, frequent: false)
        let frequent = engine.configuration.priorityBudget(type: context.activityType, frequent: true)
        let used = ledger.values.max() ?? 0
        let limits = frequent == limit ? "\(limit)" : "\(limit) (\(frequent) with frequent updates allowed)"
        return "<section class=\"panel\" aria-labelledby=\"h-budget\"><h2 id=\"h-budget\">Budget this hour</h2>"
            + Markup.facts(
                [("priority-10 pushes accepted (most on one target)", "\(used)"), ("budget per hour", "\(limits)")],
                warnings: used >= limit ? ["priority-10 pushes accepted (most on one target)"] : [])
            + "</section>"
    }

    /// Revisions, deliveries, dead letters, starts and receipts, newest first.
    func timeline(key: String, now: Date) throws -> HTML {
        guard let timeline = try engine.timeline(key: key, limit: 100) else { return "" }
        let rows: [[HTML]] = timeline.entries.map { entry in
            switch entry {
            case .revision(let revision):
                return [Markup.time(revision.changedAt, now: now), "revision", "rev \(revision.rev)", "\(revision.note ?? "")"]
            case .delivery(let attempt):
                let status: HTML =
                    attempt.status == 200
                    ? "<span class=\"status-ok\">200</span>"
                    : "<span class=\"status-bad\">\(attempt.status == 0 ? "no answer" : String(attempt.status))</span>"
                var details: HTML =
                    "\(status) \(attempt.reason ?? "") · \(attempt.targetKind.rawValue) \(attempt.target) · priority \(attempt.priority)"
                if let note = attempt.note { details += " (\(note))" }
                details += " · \(String(format: "%.0f", attempt.latencyMilliseconds)) ms"
                if let apnsID = attempt.apnsID { details += " · apns-id <code>\(apnsID)</code>" }
                return [Markup.time(attempt.attemptedAt, now: now), "delivery", "\(attempt.rev.map { "rev \($0)" } ?? "")", details]
            case .deadLetter(let row):
                return [Markup.time(row.updatedAt, now: now), "<span class=\"status-bad\">dead letter</span>", "", "\(row.lastError ?? "")"]
            case .start(let start):
                return [
                    Markup.time(start.updatedAt, now: now), "push-to-start", "\(start.deviceID)",
                    "\(Self.startStatus(start))\(start.reason.map { ": \($0)" } ?? "")\(start.viaChannel ? " (via channel)" : "")",
                ]
            case .receipt(let receipt):
                return [Markup.time(receipt.receivedAt, now: now), "receipt", "rev \(receipt.rev)", "\(receipt.deviceID) shows it"]
            case .renewal(let renewal):
                return [
                    Markup.time(renewal.updatedAt, now: now), "renewal", "\(renewal.deviceID)",
                    "\(renewal.status.rawValue)\(renewal.reason.map { ": \($0)" } ?? "")",
                ]
            case .activity(let report):
                return [Markup.time(report.reportedAt, now: now), "app's activity", "\(report.deviceID)", HTML(text: report.summary)]
            }
        }
        return "<section class=\"panel\" aria-labelledby=\"h-timeline\"><h2 id=\"h-timeline\">Timeline</h2>"
            + Markup.table(
                caption: "Newest first (at most 100 entries)", columns: ["when", "what", "about", "details"], rows: rows, empty: "Nothing yet.")
            + "</section>"
    }

    /// A start's state: as stored, or waiting for its time, or missed (`docs/api.md`, "Scheduled starts").
    static func startStatus(_ start: StartRecord) -> HTML {
        if start.missedAt != nil { return "missed" }
        if start.status == .queued, let at = start.scheduledAt { return HTML(text: "scheduled for \(Markup.iso(at))") }
        return "\(start.status.rawValue)"
    }

    // MARK: Actions

    func noSuchActivity(_ key: String) -> HTTPResponse {
        message(status: 404, title: "No such activity", text: "There is no context \(key).")
    }

    /// Records the current state again as a new revision: every device gets it as a full snapshot.
    func resend(key: String) throws -> HTTPResponse {
        let path = Markup.activityPath(key)
        do {
            try engine.write { change in
                guard let context = try change.context(key) else { throw EngineError(.notFound, "there is no context \(key)") }
                guard context.state == .active else { throw EngineError(.contextEnded, "the context \(key) has ended") }
                _ = try change.recordChange(key, note: "resent from the dashboard")
            }
        } catch let error as EngineError where error.code == .notFound {
            return noSuchActivity(key)
        } catch let error as EngineError where error.code == .contextEnded {
            return redirect(to: path + "?done=already-ended")
        }
        logger.info("dashboardResent", [("context.key", .string(key))])
        return redirect(to: path + "?done=resent")
    }

    /// Ends the activity: its devices get the final state as the end event.
    func end(key: String) throws -> HTTPResponse {
        let path = Markup.activityPath(key)
        let result: ContextEndResult
        do {
            result = try engine.endContext(key: key, note: "ended from the dashboard")
        } catch let error as EngineError where error.code == .notFound {
            return noSuchActivity(key)
        }
        logger.info("dashboardEnded", [("context.key", .string(key))])
        return redirect(to: path + (result.alreadyEnded ? "?done=already-ended" : "?done=ended"))
    }
}
