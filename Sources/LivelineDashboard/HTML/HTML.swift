import Foundation
import LivelineAPI
import LivelineModel

/// HTML text that is safe to put into a page as it is: built by the dashboard from literals and
/// escaped values. Anything from outside (a key, a state, a reason) goes in through `init(text:)`
/// or string interpolation, which escape it.
struct HTML: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var raw: String

    /// Markup written by the dashboard itself (no value from outside in it).
    init(trusted raw: String) { self.raw = raw }

    /// Text shown as text.
    init(text: String) { self.raw = Self.escape(text) }

    init(stringLiteral value: String) { self.raw = value }

    init(stringInterpolation: Interpolation) { self.raw = stringInterpolation.raw }

    var description: String { raw }

    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.raw + rhs.raw) }

    static func += (lhs: inout HTML, rhs: HTML) { lhs.raw += rhs.raw }

    /// Joins parts with `separator`.
    static func join(_ parts: [HTML], separator: HTML = "") -> HTML { HTML(trusted: parts.map(\.raw).joined(separator: separator.raw)) }

    /// Literals pass as they are; interpolated strings and numbers are escaped, HTML is not.
    struct Interpolation: StringInterpolationProtocol {
        var raw = ""
        init(literalCapacity: Int, interpolationCount: Int) { raw.reserveCapacity(literalCapacity + 16 * interpolationCount) }
        mutating func appendLiteral(_ literal: String) { raw += literal }
        mutating func appendInterpolation(_ html: HTML) { raw += html.raw }
        mutating func appendInterpolation(_ text: String) { raw += HTML.escape(text) }
        mutating func appendInterpolation(_ text: String?) { raw += HTML.escape(text ?? "") }
        mutating func appendInterpolation(_ number: Int) { raw += String(number) }
        mutating func appendInterpolation(_ value: some CustomStringConvertible) { raw += HTML.escape(value.description) }
    }

    /// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

/// Small pieces the pages share.
enum Markup {
    /// A table with a header row; each row as long as `columns`. `caption` names it for readers;
    /// with `rowHeaders`, each row's first cell is the header of its row (what the row is about).
    static func table(caption: String, columns: [String], rows: [[HTML]], empty: String, rowHeaders: Bool = false) -> HTML {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(empty)</p>" }
        let head = HTML.join(columns.map { "<th scope=\"col\">\($0)</th>" })
        let body = HTML.join(
            rows.map { row in
                let cells = row.enumerated().map { index, cell -> HTML in
                    rowHeaders && index == 0 ? "<th scope=\"row\">\(cell)</th>" : "<td>\(cell)</td>"
                }
                return "<tr>\(HTML.join(cells))</tr>"
            }, separator: "\n")
        return "<table><caption>\(caption)</caption><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table>"
    }

    /// Name–value pairs as a definition list.
    static func facts(_ pairs: [(String, HTML)], warnings: Set<String> = []) -> HTML {
        HTML(trusted: "<dl class=\"facts\">")
            + HTML.join(
                pairs.map { name, value in
                    warnings.contains(name)
                        ? "<div class=\"warning\"><dt>\(name)</dt><dd>\(value)</dd></div>" : "<div><dt>\(name)</dt><dd>\(value)</dd></div>"
                }) + HTML(trusted: "</dl>")
    }

    /// A time as UTC with seconds, and how long ago it was.
    static func time(_ date: Date, now: Date) -> HTML {
        "<time datetime=\(quoted(iso(date)))>\(clock(date))</time> <span class=\"ago\">(\(age(now.timeIntervalSince(date))))</span>"
    }

    /// `2026-12-02T10:15:02Z`.
    static func iso(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// `10:15:02` (UTC) for today-ish times, with the date before it otherwise.
    static func clock(_ date: Date) -> String {
        let text = iso(date)
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    /// `4 s ago`, `3 min ago`, `2 h ago`, `5 d ago`; `in 3 min` for the future.
    static func age(_ seconds: TimeInterval) -> String { DashboardFact.age(seconds) }

    /// A double-quoted attribute value.
    static func quoted(_ value: String) -> HTML { HTML(trusted: "\"" + HTML.escape(value) + "\"") }

    /// The page of the activity `key` (percent-encoded as the routes encode it).
    static func activityPath(_ key: String) -> String { Dashboard.activityRoute.path(["key": key]) }
}
