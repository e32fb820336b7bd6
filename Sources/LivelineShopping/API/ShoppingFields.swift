import LivelineAPI

/// The input fields of the shopping routes, declared once (``FieldRule``).
enum ShoppingFields {
    /// The ISO date of a Monday (``ShoppingWeek``), years 0001 to 9999: exactly the pattern made
    /// from the calendar (``ShoppingWeek/pattern``), a `date` besides. Printed once in the
    /// document (`IsoMonday`) and referred to by every route that names a week. Checked by
    /// ``ShoppingWeek``'s arithmetic, which `ShoppingWeekPatternTests` holds to the pattern.
    static let isoMonday = TextFormat(
        pattern: ShoppingWeek.pattern, format: "date", about: "the ISO date of a Monday, e.g. 2026-01-05",
        equivalent: { ShoppingWeek($0) != nil })
    static let week = FieldRule("week", .text(length: 10...10, format: isoMonday), about: "the week", component: "IsoMonday")
    static let itemID = CommonFields.rowID(about: "an item's id")
    static let label = FieldRule("label", .text(length: 1...200, nonBlank: true), about: "the item")
    static let price = FieldRule("price", .number(0...1_000_000), about: "euros")
    static let position = FieldRule("position", .integer(0...1_000_000), about: "its place in the list")
}
