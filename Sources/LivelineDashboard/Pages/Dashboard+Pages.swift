import Foundation
import LivelineAPI
import LivelineModel
import LivelineStore

extension Dashboard {
    /// How many token rows the devices page shows at most.
    static let tokenRowLimit = 1000

    /// `/dashboard/devices`: per household and device, each token's kind, age, last seen, and
    /// whether it is invalid or suspect, with the reason; tokens by prefix only.
    func devicesPage(now: Date) throws -> PageContent {
        let tokens = try reads.tokens(endedWithin: 7 * 86400, now: now, limit: Self.tokenRowLimit)
        var main: HTML = "<h1>Devices and tokens</h1>\n"
        main +=
            "<p class=\"note\">Active tokens, and those that stopped in the last 7 days with the reason. Tokens show their first characters only.</p>"
        var households: [(HouseholdID, String, [OperationsReads.TokenLine])] = []
        for token in tokens {
            if households.last?.0 == token.householdID {
                households[households.count - 1].2.append(token)
            } else {
                households.append((token.householdID, token.householdName, [token]))
            }
        }
        if households.isEmpty { main += "<p class=\"empty\">No tokens registered yet.</p>" }
        for (id, name, lines) in households {
            let rows: [[HTML]] = lines.map { line in
                var state: HTML =
                    line.status == "active" ? "<span class=\"status-ok\">active</span>" : "<span class=\"status-bad\">\(line.status)</span>"
                if let reason = line.endReason, line.status != "active" { state += " · \(reason)" }
                if line.suspectAt != nil, line.status == "active" {
                    state += " · <span class=\"status-bad\">suspect</span>\(line.suspectReason.map { ": \($0)" } ?? "")"
                }
                let scope = line.contextKey ?? line.attributesType ?? ""
                return [
                    "\(line.deviceID)", "\(line.userName)", "\(line.kind)", "\(scope)", "<code>\(line.tokenPrefix)</code>", "\(line.environment)",
                    "<span class=\"ago\">\(Markup.age(now.timeIntervalSince(line.firstRegisteredAt)).replacingOccurrences(of: " ago", with: ""))</span>",
                    Markup.time(line.lastRegisteredAt, now: now), state,
                ]
            }
            main +=
                "<section class=\"panel\" aria-labelledby=\"h-household-\(id.rawValue)\"><h2 id=\"h-household-\(id.rawValue)\">Household \(name)</h2>"
            main += Markup.table(
                caption: "Tokens of household \(name) by device",
                columns: ["device", "user", "kind", "for", "token", "environment", "age", "last seen", "state"],
                rows: rows, empty: "")
            main += "</section>"
        }
        if tokens.count == Self.tokenRowLimit {
            main += "<p class=\"note\">Showing the first \(Self.tokenRowLimit) tokens.</p>"
        }
        return PageContent(title: "Devices and tokens", main: main, events: "/dashboard/events?page=devices")
    }

    /// `/dashboard/check`: paste a payload, pick a contract, see the report `contracts check` prints.
    func checkPage(csrf: String, fields: [String: String], report: String?) -> PageContent {
        let chosen = fields["contract"] ?? ""
        let destination = fields["destination"] ?? "device"
        let options = HTML.join(
            [HTML(trusted: "<option value=\"\"\(chosen.isEmpty ? " selected" : "")>from the payload's aps.attributes-type</option>")]
                + engine.contracts.names.map { name in
                    "<option value=\(Markup.quoted(name))\(HTML(trusted: name == chosen ? " selected" : ""))>\(name)</option>"
                })
        var main: HTML = """
            <h1>Payload check</h1>
            <p class="note">The same check as <code>liveline contracts check</code> and as every push before it is sent: what a phone would drop, and why.</p>
            <section class="panel" aria-labelledby="h-form"><h2 id="h-form">Payload</h2>
            <form method="post" action="/dashboard/check">
            <input type="hidden" name="csrf" value=\(Markup.quoted(csrf))>
            <label for="payload">Push payload (JSON, with <code>aps</code>)</label>
            <textarea id="payload" name="payload" required spellcheck="false">\(fields["payload"] ?? "")</textarea>
            <label for="contract">Contract</label>
            <select id="contract" name="contract">\(options)</select>
            <label for="destination">Sent to</label>
            <select id="destination" name="destination"><option value="device"\(HTML(trusted: destination == "device" ? " selected" : ""))>a device token</option><option value="broadcast"\(HTML(trusted: destination == "broadcast" ? " selected" : ""))>a broadcast channel</option></select>
            <p><button type="submit">Check</button></p>
            </form></section>
            """
        if let report {
            main += "<section class=\"panel\" aria-labelledby=\"h-report\"><h2 id=\"h-report\">Report</h2><pre data-report>\(report)</pre></section>"
        }
        return PageContent(title: "Payload check", main: main, events: nil)
    }

    /// The report of a sent check form.
    func check(_ fields: [String: String]) -> String {
        let payload = fields["payload"] ?? ""
        guard !payload.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return "Paste a payload to check." }
        let destination: PushDestination = fields["destination"] == "broadcast" ? .broadcast : .device
        let chosen = fields["contract"].flatMap { $0.isEmpty ? nil : $0 }
        let contract = chosen.flatMap { engine.contracts.contract(named: $0) }
        if let chosen, contract == nil { return "Unknown contract '\(chosen)'; known: \(engine.contracts.names.joined(separator: ", "))" }
        let report = PayloadCheck(destination: destination, now: clock(), registry: engine.contracts).check(
            json: Data(payload.utf8), contract: contract)
        if contract == nil, !report.problems(.unknownContract).isEmpty {
            return
                "The payload names no contract (no aps.attributes-type): pick one above; known: \(engine.contracts.names.joined(separator: ", "))"
        }
        return report.text(file: "payload", destination: destination)
    }

    /// A feature's page (``DashboardPanel``).
    func panelPage(_ panel: DashboardPanel, now: Date) throws -> PageContent {
        var main: HTML = "<h1>\(panel.title)</h1>\n"
        for (index, section) in try panel.sections().enumerated() {
            main += "<section class=\"panel\" aria-labelledby=\"h-s\(index)\"><h2 id=\"h-s\(index)\">\(section.heading)</h2>"
            if !section.facts.isEmpty {
                main += Markup.facts(
                    section.facts.map { ($0.name, HTML(text: $0.value)) }, warnings: Set(section.facts.filter(\.warning).map(\.name)))
            }
            if !section.columns.isEmpty {
                main += Markup.table(
                    caption: section.heading, columns: section.columns, rows: section.rows.map { $0.map { HTML(text: $0) } },
                    empty: section.note ?? "None.")
            } else if let note = section.note {
                main += "<p class=\"note\">\(note)</p>"
            }
            main += "</section>"
        }
        return PageContent(title: panel.title, main: main, events: "/dashboard/events?page=\(panel.slug)")
    }
}
