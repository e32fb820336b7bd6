import Foundation
import LivelineModel

/// RFC 3339 §5.6 dates and times as regular expressions exact to the proleptic Gregorian
/// calendar (a 29 February only in a leap year, every month its own length), for the patterns
/// of ``TextFormat``; and the moment a matched date-time names, by plain arithmetic (no
/// calendar: Foundation's Gregorian calendar turns Julian before 1582).
///
/// Years run from 0001 to 9999 (`date-fullyear` is four digits; year 0000 has no day in the
/// API). A leap second (`:60`, §5.7) is not taken: POSIX time, which the server counts in, has
/// none.
/// `T` and `Z` may be lower case (§5.6, NOTE).
public enum RFC3339 {
    /// A year from 0001 to 9999.
    static let year = "([0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)"
    /// A leap year from 0004 to 9996: divisible by 4, a century only when divisible by 400.
    static let leapYear = "([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)"

    /// `full-date`: a real day, `YYYY-MM-DD`.
    public static let fullDate =
        "(\(year)-((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)|\(leapYear)-02-29)"

    /// `date-time`: a ``fullDate``, `T`, `HH:MM:SS`, optional fractional seconds, and `Z` or an
    /// offset `±HH:MM`.
    public static let dateTime =
        "\(fullDate)[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"

    /// The moment `text`, a match of ``dateTime``, names; nil for text that is not one.
    public static func date(fromDateTime text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            var scale = 0.1
            index += 1
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6) else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days from 1970-01-01 to the day (``CivilDays``).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int { CivilDays.since1970(year: year, month: month, day: day) }
}
