import Foundation
import LivelineModel

/// The weekly shopping list's Live Activity (`docs/contracts.md` §1, source 000).
///
/// Static attributes are sent with `start` only. Context key: `shopping:{householdId}:{week}`.
public struct ShoppingActivityAttributes: Codable, Hashable, Sendable {
    /// ISO date of the Monday of the shopping week, e.g. `"2026-01-05"`.
    public var week: String

    public init(week: String) {
        self.week = week
    }
}
