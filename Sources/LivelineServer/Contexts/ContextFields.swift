import Foundation
import LivelineAPI

/// The input fields of the `/v1/contexts` routes, declared once (``FieldRule``).
enum ContextFields {
    /// `limit` of a timeline.
    static let timelineLimit = CommonFields.limit(1...1000)
    /// `relevanceScore` of a put.
    static let relevanceScore = FieldRule("relevanceScore", .number(0...Double.greatestFiniteMagnitude), about: "the activity's relevance")
    /// `at` of a start: when it goes out, an RFC 3339 date-time (``RFC3339/dateTime``: any
    /// offset, fractional seconds, years 0001 to 9999, no leap second) — exactly the pattern.
    static let startAt = FieldRule(
        "at",
        .text(
            length: 20...64,
            format: TextFormat(
                pattern: "^\(RFC3339.dateTime)$", format: "date-time",
                about: "an RFC 3339 date-time, e.g. 2026-06-18T08:00:00Z (any offset, fractional seconds)")),
        about: "when the push-to-start goes out (default: at once); at most 60 s in the past, at most 7 days ahead")

    /// The moment `text` (a start's `at`) names, checked against ``startAt``.
    static func startTime(_ text: String?) throws -> Date? {
        guard let text else { return nil }
        guard let date = RFC3339.date(fromDateTime: try startAt.text(text)) else { throw startAt.refusal(text) }
        return date
    }

    /// Users, and devices, of one start (each list at most this many).
    static let startTargets = 0...1000
}
