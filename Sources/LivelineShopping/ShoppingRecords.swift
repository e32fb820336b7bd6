import Foundation
import LivelineEngine
import LivelineModel
import LivelineShoppingModel
import LivelineStore

/// An item as the database holds it: the shared model's `ShoppingListItem` (what the API shows).
extension ShoppingListItem {
    static let columns = "id, label, price, position, done, added_by, added_at, checked_by, checked_at"

    init(row: Row) throws {
        self.init(
            id: try row.int("id"), label: try row.string("label"), price: try row.optionalDouble("price"), position: try row.int("position"),
            done: try row.bool("done"), addedBy: try row.optionalInt("added_by"), addedAt: try row.date("added_at"),
            checkedBy: try row.optionalInt("checked_by"), checkedAt: try row.optionalDate("checked_at")
        )
    }
}

/// A tracked action of the week's chronology.
public enum ShoppingAction: String, Sendable, Hashable, Codable {
    case added, checked, unchecked, removed, edited
}

/// What a pull of a shopping week found (``ShoppingDomain/read(week:householdID:sinceRev:snapshot:)``).
public enum ShoppingRead: Sendable {
    case unchanged(rev: Int)
    case changed(rev: Int, items: [ShoppingListItem], state: ShoppingActivityAttributes.ContentState)
}

/// Ends the shopping sessions whose heartbeat lapsed (each a change of its week's card), on the
/// engine's periodic sweep.
public struct ShoppingSessionExpiry: PeriodicTask {
    let domain: ShoppingDomain
    let report: @Sendable (String) -> Void

    public init(domain: ShoppingDomain, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.domain = domain
        self.report = report
    }

    public func run(now: Date) {
        do {
            try domain.expireSessions(now: now)
        } catch {
            report("shopping: expiring lapsed sessions failed (tried again on the next sweep): \(error)")
        }
    }
}

/// What the API accepts of a shopping item (`docs/features/shopping.md`, "Data"); each check names the field.
public enum ShoppingInput {
    /// A label of 1 to 200 characters (spaces around it removed).
    public static func label(_ text: String, field: String = "label") throws(ShoppingInputError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count) else {
            throw ShoppingInputError(field: field, message: "\(field) must be 1 to 200 characters, not \(trimmed.count)")
        }
        return trimmed
    }

    /// A price in euros: a finite number of 0 or more, kept to the cent.
    public static func price(_ value: Double, field: String = "price") throws(ShoppingInputError) -> Double {
        guard value.isFinite, value >= 0, value <= 1_000_000 else {
            throw ShoppingInputError(field: field, message: "\(field) must be a number of euros from 0 to 1000000, not \(value)")
        }
        return (value * 100).rounded() / 100
    }

    /// A list position: 0 or more.
    public static func position(_ value: Int, field: String = "position") throws(ShoppingInputError) -> Int {
        guard (0...1_000_000).contains(value) else {
            throw ShoppingInputError(field: field, message: "\(field) must be a whole number from 0 to 1000000, not \(value)")
        }
        return value
    }
}

/// A refused shopping input: the field and what was expected.
public struct ShoppingInputError: Error, Sendable, CustomStringConvertible {
    public let field: String
    public let message: String
    public var description: String { message }
}
