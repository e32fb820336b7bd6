import Foundation

/// A GTFS service day (a calendar date, `YYYYMMDD` in GTFS and GTFS-Realtime), and the instant its
/// stop times count from.
///
/// GTFS times of day are measured from "noon minus 12 h" of the service day in the agency's time
/// zone (https://gtfs.org/documentation/schedule/reference/#field-types, "Time"): midnight on most
/// days, but 23:00 or 01:00 of the local clock on the days daylight saving time starts or ends.
public struct ServiceDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// A date written `YYYYMMDD` (GTFS, and GTFS-Realtime's `start_date`); `nil` if it is not eight
    /// digits making a real date.
    public init?(gtfsDate text: String) {
        guard text.utf8.count == 8, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let number = Int(text)
        else { return nil }
        self.init(year: number / 10_000, month: number / 100 % 100, day: number % 100)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
    }

    /// The service day that starts on the calendar day of `date` in `timeZone`.
    public init(containing date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = calendar.dateComponents([.year, .month, .day], from: date)
        self.init(year: components.year ?? 1970, month: components.month ?? 1, day: components.day ?? 1)
    }

    /// `YYYYMMDD`.
    public var gtfsDate: String { String(format: "%04d%02d%02d", year, month, day) }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    /// Noon minus 12 h of this day in `timeZone`: the instant the day's GTFS times count from.
    public func reference(in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let noon = DateComponents(year: year, month: month, day: day, hour: 12)
        // Noon exists on every day: DST changes happen at night.
        guard let date = calendar.date(from: noon) else { preconditionFailure("no noon on \(self) in \(timeZone.identifier)") }
        return date.addingTimeInterval(-12 * 3600)
    }

    /// The instant of a GTFS time on this day (seconds since ``reference(in:)``, may pass 24 h).
    public func date(at seconds: Int, in timeZone: TimeZone) -> Date {
        reference(in: timeZone).addingTimeInterval(TimeInterval(seconds))
    }

    /// The service day before (`-1`) or after (`+1`) this one.
    public func adding(days: Int) -> ServiceDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day + days, hour: 12)) ?? Date()
        return ServiceDay(containing: date, in: calendar.timeZone)
    }

    public static func < (lhs: ServiceDay, rhs: ServiceDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
