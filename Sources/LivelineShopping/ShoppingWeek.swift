import LivelineModel
import LivelineStore

/// A shopping week, named by the ISO date of its Monday (`docs/features/shopping.md`: "anything else is a 400").
public struct ShoppingWeek: Sendable, Hashable, CustomStringConvertible {
    public let monday: String

    /// Nil unless `text` is `YYYY-MM-DD`, a real date of the proleptic Gregorian calendar, and a
    /// Monday. (Plain arithmetic: it runs on every request of the list's routes.)
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1,
            (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, year: year),
            Self.weekday(year: year, month: month, day: day) == 1
        else { return nil }
        monday = text
    }

    public var description: String { monday }

    /// The week `day` (`YYYY-MM-DD`, any day) belongs to; nil when `day` is no real date.
    public static func containing(_ day: String) -> ShoppingWeek? {
        let parts = day.split(separator: "-", omittingEmptySubsequences: false)
        let bytes = Array(day.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element) }),
            parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let date = Int(parts[2]),
            year >= 1, (1...12).contains(month), date >= 1, date <= days(inMonth: month, year: year)
        else { return nil }
        // Back to the Monday, one day at a time across month and year ends.
        var (y, m, d) = (year, month, date)
        for _ in 1..<weekday(year: year, month: month, day: date) {
            if d > 1 {
                d -= 1
            } else if m > 1 {
                m -= 1
                d = days(inMonth: m, year: y)
            } else {
                (y, m, d) = (y - 1, 12, 31)
            }
        }
        return ShoppingWeek(String(format: "%04d-%02d-%02d", y, m, d))
    }

    /// The context key of a household's week (`docs/contracts.md` §1).
    public func contextKey(householdID: HouseholdID) -> String { "shopping:\(householdID):\(monday)" }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// ISO weekday, 1 = Monday … 7 = Sunday.
    static func weekday(year: Int, month: Int, day: Int) -> Int { CivilDays.isoWeekday(year: year, month: month, day: day) }
}
