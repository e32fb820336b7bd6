import Foundation
import LivelineModel

/// A GTFS time of day (`arrival_time`, `departure_time`): `H:MM:SS` or `HH:MM:SS`, counted from
/// "noon minus 12 h" of the service day, so it may pass `24:00:00` for trips after midnight.
enum GTFSTime {
    /// Seconds since noon minus 12 h; nil when `text` is no such time. (Byte by byte: it runs
    /// twice for every stop time of a feed.)
    static func seconds(_ text: String) -> Int? {
        var utf8 = Substring(text).utf8[...]
        while utf8.first == 0x20 || utf8.first == 0x09 { utf8 = utf8.dropFirst() }
        while utf8.last == 0x20 || utf8.last == 0x09 { utf8 = utf8.dropLast() }
        var parts: [Int] = []
        var value = 0
        var digits = 0
        var widths: [Int] = []
        for byte in utf8 {
            if byte == UInt8(ascii: ":") {
                guard digits > 0 else { return nil }
                parts.append(value)
                widths.append(digits)
                value = 0
                digits = 0
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                // No part has more than 3 digits: a longer run is no time (and would overflow).
                guard digits < 3 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        parts.append(value)
        widths.append(digits)
        guard parts.count == 3, (1...3).contains(widths[0]), widths[1] == 2, widths[2] == 2, parts[1] < 60, parts[2] < 60 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    /// `HH:MM:SS` of `seconds` (hours past 24 as they are).
    static func text(_ seconds: Int) -> String {
        String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }
}

/// A service day (`YYYYMMDD`) in the agency's time zone, and the moment its GTFS times count from.
public struct ServiceDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// `YYYYMMDD` (GTFS) or `YYYY-MM-DD` (the API); nil when it is no real date.
    public init?(_ text: String) {
        let digits = text.filter { $0 != "-" }
        guard digits.count == 8, digits.allSatisfy({ $0.isASCII && $0.isNumber }), text.count == 8 || text.count == 10,
            let year = Int(digits.prefix(4)), let month = Int(digits.dropFirst(4).prefix(2)), let day = Int(digits.suffix(2)),
            (1...12).contains(month), day >= 1, day <= Self.days(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYYMMDD` only (a GTFS or GTFS-Realtime date); nil otherwise.
    public init?(gtfsDate text: String) {
        guard text.count == 8 else { return nil }
        self.init(text)
    }

    /// The day `date` falls on in `zone`.
    public init(containing date: Date, in zone: TimeZone) { self = Self.containing(date, in: zone) }

    /// `YYYYMMDD`.
    public var gtfs: String { String(format: "%04d%02d%02d", year, month, day) }
    /// `YYYYMMDD` (the name GTFS-Realtime's `start_date` code uses).
    public var gtfsDate: String { gtfs }

    public static func < (left: ServiceDay, right: ServiceDay) -> Bool { (left.year, left.month, left.day) < (right.year, right.month, right.day) }

    /// The day `days` later (earlier when negative).
    public func adding(days: Int) -> ServiceDay {
        var day = self
        for _ in 0..<abs(days) { day = days < 0 ? day.previous : day.next }
        return day
    }

    /// The day after.
    public var next: ServiceDay {
        if day < Self.days(month: month, year: year) { return ServiceDay(year: year, month: month, day: day + 1) }
        if month < 12 { return ServiceDay(year: year, month: month + 1, day: 1) }
        return ServiceDay(year: year + 1, month: 1, day: 1)
    }

    /// ``date(_:in:)``.
    public func date(at seconds: Int, in zone: TimeZone) -> Date { date(seconds, in: zone) }
    /// `YYYY-MM-DD`.
    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    /// Noon minus 12 hours of this day in `zone` (GTFS reference, "Field Types: Time"): midnight,
    /// except on the days a daylight saving change moves the clocks.
    public func reference(in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)) ?? Date(timeIntervalSince1970: 0)
        return noon.addingTimeInterval(-12 * 3600)
    }

    /// The moment `seconds` (a GTFS time) of this day is, in `zone`.
    public func date(_ seconds: Int, in zone: TimeZone) -> Date { reference(in: zone).addingTimeInterval(TimeInterval(seconds)) }

    /// ISO weekday: 1 Monday … 7 Sunday.
    public var weekday: Int { CivilDays.isoWeekday(year: year, month: month, day: day) }

    /// The day before (service days of trips past midnight start on it).
    public var previous: ServiceDay {
        if day > 1 { return ServiceDay(year: year, month: month, day: day - 1) }
        if month > 1 { return ServiceDay(year: year, month: month - 1, day: Self.days(month: month - 1, year: year)) }
        return ServiceDay(year: year - 1, month: 12, day: 31)
    }

    /// The service day `date` falls on in `zone` (its calendar date there).
    public static func containing(_ date: Date, in zone: TimeZone) -> ServiceDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return ServiceDay(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    static func days(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension GTFSFeed {
    /// Whether `serviceID` runs on `day` (`calendar.txt` by weekday and range, then the
    /// exceptions of `calendar_dates.txt`; a feed may have only the latter).
    public func runs(_ serviceID: String, on day: ServiceDay) -> Bool {
        let date = day.gtfs
        if let exception = calendarDates[serviceID]?.first(where: { $0.date == date }) { return exception.exceptionType == 1 }
        guard let calendar = calendars[serviceID], calendar.startDate <= date, date <= calendar.endDate else { return false }
        return calendar.weekdays[day.weekday - 1]
    }
}
