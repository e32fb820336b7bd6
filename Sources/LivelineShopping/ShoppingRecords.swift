import Foundation
import LivelineStore

/// One item of a household's week.
public struct ShoppingItem: Sendable, Hashable, Codable {
    public var id: Int
    public var label: String
    public var price: Double?
    public var position: Int
    public var done: Bool
    public var addedBy: Int?
    public var addedAt: Date
    public var checkedBy: Int?
    public var checkedAt: Date?

    static let columns = "id, label, price, position, done, added_by, added_at, checked_by, checked_at"

    init(row: Row) throws {
        id = try row.int("id")
        label = try row.string("label")
        price = try row.optionalDouble("price")
        position = try row.int("position")
        done = try row.bool("done")
        addedBy = try row.optionalInt("added_by")
        addedAt = try row.date("added_at")
        checkedBy = try row.optionalInt("checked_by")
        checkedAt = try row.optionalDate("checked_at")
    }
}

/// A tracked action of the week's chronology.
public enum ShoppingAction: String, Sendable, Hashable, Codable {
    case added, checked, unchecked, removed, edited

    /// Whether the action is material for the card (`shopping.md`: edits go at priority 5).
    public var isMaterial: Bool { self != .edited }
}
