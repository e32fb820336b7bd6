/// The id of a household (`households.id`; `docs/engine.md`, "People, devices, auth").
///
/// A type of its own, so a household's id cannot be passed where a user's id or a token's row id
/// is expected. It reads and writes as the plain number — in JSON (`Codable`), in text
/// (`description`, as in the context key `shopping:{householdId}:{week}`) and in SQL
/// (`SQLValue(id)`) — so no API body and no stored row changes. The API bodies of
/// `LivelineModel`, shared with the iOS app, keep `Int`; handlers convert at their boundary.
public struct HouseholdID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// For tests and fixtures: `householdID: 1`.
    public init(integerLiteral value: Int) { rawValue = value }

    public static func < (lhs: HouseholdID, rhs: HouseholdID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
