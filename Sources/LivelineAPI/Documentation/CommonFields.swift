import Foundation
import LivelineHTTP

/// The input fields several routes share, declared once (see ``FieldRule``).
public enum CommonFields {
    /// `at` of a start: when its push-to-start goes out, an RFC 3339 date-time
    /// (``RFC3339/dateTime``: any offset, fractional seconds, years 0001 to 9999, no leap second)
    /// — exactly the pattern. The range is the engine's (`EngineConfiguration.scheduledStartProblem`).
    public static let startAt = FieldRule(
        "at",
        .text(
            length: 20...64,
            format: TextFormat(
                pattern: "^\(RFC3339.dateTime)$", format: "date-time",
                about: "an RFC 3339 date-time, e.g. 2026-06-18T08:00:00Z (any offset, fractional seconds)")),
        about: "when the push-to-start goes out (default: at once); at most 60 s in the past, at most 7 days ahead")

    /// The moment `text` (a start's `at`) names, checked against ``startAt``.
    public static func startTime(_ text: String?) throws -> Date? {
        guard let text else { return nil }
        guard let date = RFC3339.date(fromDateTime: try startAt.text(text)) else { throw startAt.refusal(text) }
        return date
    }

    /// `since_rev`: the revision the caller has.
    public static let sinceRev = FieldRule("since_rev", .integer(0...Int(Int32.max)), about: "the revision the caller has")
    /// A context key: 1 to 200 letters, digits and `.` `_` `-` `:` `@`.
    public static let contextKey = FieldRule(
        "key", .text(length: 1...HTTPRequest.maxContextKeyLength, characters: .alphanumerics(and: "._-:@")), about: "a context key, e.g. trip:42")
    /// A user's id.
    public static let userID = FieldRule("userId", .integer(1...Int(Int64.max)), about: "a user's id")
    /// `by`: the acting member of the caller's household (default: the caller).
    public static let by = FieldRule("by", .integer(1...Int(Int64.max)), about: "the acting member's user id")
    /// A row id (an item, a notification).
    public static func rowID(_ name: String = "id", about: String) -> FieldRule { FieldRule(name, .integer(1...Int(Int64.max)), about: about) }
    /// `limit`: at most this many entries.
    public static func limit(_ range: ClosedRange<Int>) -> FieldRule { FieldRule("limit", .integer(range), about: "at most this many entries") }
    /// An id a feature hands out (``PublicID``) with `prefix`.
    public static func publicID(prefix: String, about: String) -> FieldRule {
        FieldRule(
            "id",
            .text(
                length: prefix.unicodeScalars.count...64,
                format: TextFormat(pattern: "^\(prefix)[A-Za-z0-9]*$", about: "\(prefix) and letters or digits")), about: about)
    }
    /// A JSON value with no white space or control characters (device ids, context keys of tokens).
    public static func visible(_ name: String, _ length: ClosedRange<Int>, about: String) -> FieldRule {
        FieldRule(
            name,
            .text(
                length: length,
                format: TextFormat(
                    pattern: "^[^\\u0000-\\u0020\\u007F]*$",
                    about: "\(length.lowerBound) to \(length.upperBound) characters without spaces or control characters")), about: about)
    }
    /// A day, `YYYY-MM-DD` (RFC 3339 `full-date`, years 0001 to 9999): a real one, exactly as the
    /// pattern says (``RFC3339/fullDate``).
    public static func day(_ name: String, about: String) -> FieldRule {
        FieldRule(
            name,
            .text(
                length: 10...10,
                format: TextFormat(pattern: "^\(RFC3339.fullDate)$", format: "date", about: "a day written YYYY-MM-DD, e.g. 2026-06-18")),
            about: about)
    }
}
