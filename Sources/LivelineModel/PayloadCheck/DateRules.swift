import Foundation

/// The two date conventions of a Live Activity push, and how to tell them apart.
///
/// - Header dates (`timestamp`, `stale-date`, `dismissal-date`) are UNIX seconds (`docs/apns.md` §1.5).
/// - A `Date` inside `content-state` or `attributes` is Swift's default: a number of seconds since
///   2001-01-01 00:00:00 UTC. UNIX seconds there decode fine but land about 31 years late; ISO
///   text fails to decode (`docs/devices.md`, "Decoding").
public enum DateRules {
    /// Seconds from 1970-01-01 to 2001-01-01 (`Date.timeIntervalBetween1970AndReferenceDate`).
    static let referenceOffset: TimeInterval = 978_307_200
    /// A content-state date further than this from now is implausible: about ten years.
    static let plausibleWindow: TimeInterval = 10 * 365.25 * 86_400
    /// UNIX seconds this large are milliseconds (year 5138 and later).
    static let millisecondsThreshold: Double = 100_000_000_000
    /// UNIX seconds this small are before 2001-09-09: more likely seconds since 2001.
    static let unixSecondsFloor: Double = 1_000_000_000
    /// The phone drops an update whose timestamp is more than this ahead (`docs/devices.md`).
    static let futureTimestampLimit: TimeInterval = 8 * 3600

    /// A problem with a content-state `Date` given as the JSON number `seconds`, or nil.
    /// The content-state dates (seconds since 2001) taken as plausible on `now`'s UTC day: about
    /// ten years either side of the day's start. By the day, not the second, so that what
    /// `/openapi.json` says on a day (`ContractDocumentation`) is exactly what the check accepts.
    public static func plausibleContentDates(now: Date) -> ClosedRange<Double> {
        let day = (now.timeIntervalSinceReferenceDate / 86_400).rounded(.down) * 86_400
        return (day - plausibleWindow)...(day + plausibleWindow)
    }

    static func contentDateProblem(_ seconds: Double, at path: String, now: Date) -> PayloadProblem? {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        guard !plausibleContentDates(now: now).contains(seconds) else { return nil }
        let distance = describeDistance(from: now, to: date)
        let decodes = "\(number(seconds)) decodes to \(iso(date)), \(distance)"
        let asUnix = Date(timeIntervalSince1970: seconds)
        if abs(asUnix.timeIntervalSince(now)) <= plausibleWindow {
            return PayloadProblem(
                .implausibleDate, at: path,
                "\(decodes): it looks like UNIX seconds (\(iso(asUnix))). Swift's default JSONDecoder reads a Date as seconds since 2001-01-01 00:00:00 UTC, so the card would show a time about 31 years late; send \(number(seconds - referenceOffset)) (UNIX seconds − 978307200)"
            )
        }
        let asUnixMilliseconds = Date(timeIntervalSince1970: seconds / 1000)
        if abs(asUnixMilliseconds.timeIntervalSince(now)) <= plausibleWindow {
            return PayloadProblem(
                .implausibleDate, at: path,
                "\(decodes): it looks like UNIX milliseconds (\(iso(asUnixMilliseconds))). Swift's default JSONDecoder reads a Date as seconds since 2001-01-01 00:00:00 UTC; send \(number(seconds / 1000 - referenceOffset))"
            )
        }
        return PayloadProblem(
            .implausibleDate, at: path,
            "\(decodes), more than 10 years away. A Date is a number of seconds since 2001-01-01 00:00:00 UTC (Swift's default JSONDecoder); now is \(number(now.timeIntervalSinceReferenceDate.rounded(.down)))"
        )
    }

    /// A content-state `Date` given as text: the phone fails to decode it.
    static func contentDateAsString(_ text: String, at path: String) -> PayloadProblem {
        var message =
            "is the string \"\(text)\", but a Date must be a JSON number of seconds since 2001-01-01 00:00:00 UTC (Swift's default JSONDecoder, which ActivityKit uses); the phone fails to decode the whole content state"
        if let date = parseISO(text) {
            message += "; send \(number(date.timeIntervalSinceReferenceDate))"
        }
        return PayloadProblem(.dateAsString, at: path, message)
    }

    /// Checks a header date (UNIX seconds); returns the date when it is one, and any problem.
    static func headerDate(_ value: JSONValue, at path: String) -> (date: Date?, problem: PayloadProblem?) {
        guard let seconds = value.numberValue else {
            var message = "must be a JSON number of UNIX seconds, found \(value.kindDescription)"
            if let text = value.stringValue, let date = parseISO(text) {
                message += " \"\(text)\"; send \(number(date.timeIntervalSince1970))"
            }
            return (nil, PayloadProblem(.typeMismatch, at: path, message))
        }
        if seconds >= millisecondsThreshold {
            let date = Date(timeIntervalSince1970: seconds / 1000)
            return (
                date,
                PayloadProblem(
                    .dateInMilliseconds, at: path,
                    "\(number(seconds)) looks like UNIX milliseconds (\(iso(date))); aps dates are UNIX seconds: send \(number((seconds / 1000).rounded(.down)))"
                )
            )
        }
        if seconds < unixSecondsFloor {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let hint =
                seconds > 0
                ? "; if it is seconds since 2001-01-01 (Swift's Date encoding, \(iso(date))), send \(number(seconds + referenceOffset))"
                : ""
            return (
                nil,
                PayloadProblem(
                    .dateNotUnixSeconds, at: path,
                    "\(number(seconds)) is before 2001-09-09 as UNIX seconds; aps dates are UNIX seconds\(hint)")
            )
        }
        return (Date(timeIntervalSince1970: seconds), nil)
    }

    /// `2057-01-05T00:46:40Z`.
    static func iso(_ date: Date) -> String {
        // ISO 8601 has no sensible text for dates beyond about ±10,000 years.
        guard abs(date.timeIntervalSince1970) < 250_000_000_000 else {
            return date.timeIntervalSince1970 > 0 ? "a date more than 10,000 years ahead" : "a date more than 10,000 years ago"
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Parses ISO 8601 text with or without fractional seconds, or `YYYY-MM-DD HH:MM:SS` as UTC.
    static func parseISO(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate, .withSpaceBetweenDateAndTime, .withTime, .withColonSeparatorInTime]
        return formatter.date(from: text)
    }

    /// A number as a person writes it: `803461320`, `14.3`.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// "31 years from now", "12 years ago".
    static func describeDistance(from now: Date, to date: Date) -> String {
        // Any JSON number may arrive here (1e300 included): stay in Double and clamp before Int.
        let years = (abs(date.timeIntervalSince(now)) / (365.25 * 86_400)).rounded()
        let amount = years.isFinite && years < 10_000 ? String(Int(years)) : "more than 10,000"
        return date > now ? "\(amount) years from now" : "\(amount) years ago"
    }
}
