import LivelineAPI

/// The input fields of the shopping routes, declared once (``FieldRule``).
enum ShoppingFields {
    /// The ISO date of a Monday (``ShoppingWeek``): a custom format, since no pattern says "a Monday".
    static let isoMonday = TextFormat(
        name: "iso-monday", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", about: "the ISO date of a Monday, e.g. 2026-01-05",
        isValid: { ShoppingWeek($0) != nil })
    static let week = FieldRule("week", .text(length: 10...10, format: isoMonday), about: "the week")
    static let itemID = CommonFields.rowID(about: "an item's id")
    static let label = FieldRule("label", .text(length: 1...200, nonBlank: true), about: "the item")
    static let price = FieldRule("price", .number(0...1_000_000), about: "euros")
    static let position = FieldRule("position", .integer(0...1_000_000), about: "its place in the list")
}
