import Foundation

/// A shopping week, named by the ISO date of its Monday (`shopping.md`: "anything else is a 400").
public struct ShoppingWeek: Sendable, Hashable, CustomStringConvertible {
    public let monday: String

    /// Nil unless `text` is `YYYY-MM-DD`, a real date, and a Monday.
    public init?(_ text: String) {
        guard text.utf8.count == 10, text.firstMatch(of: /^\d{4}-\d{2}-\d{2}$/) != nil else { return nil }
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = text.split(separator: "-").compactMap { Int($0) }
        var components = DateComponents()
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: parts[0], month: parts[1], day: parts[2]),
            calendar.component(.weekday, from: date) == 2 else { return nil }
        monday = text
    }

    public var description: String { monday }

    /// The context key of a household's week (`contracts.md` §1).
    public func contextKey(householdID: Int) -> String { "shopping:\(householdID):\(monday)" }
}
