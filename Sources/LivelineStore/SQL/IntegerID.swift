/// What the typed ids (``HouseholdID``, ``UserID``, ``PushTokenID``) share: a row id of a table
/// of its own, a type apart so that one cannot be passed for another, that reads and writes as the
/// plain number — in JSON (`Codable`, through `RawRepresentable`), in text (`description`) and in
/// SQL (`SQLValue(id)`) — so no stored row and no API body changes.
public protocol IntegerID: RawRepresentable<Int>, Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    init(rawValue: Int)
}

extension IntegerID {
    public init(_ rawValue: Int) { self.init(rawValue: rawValue) }

    /// For tests and fixtures: `householdID: 1`.
    public init(integerLiteral value: Int) { self.init(rawValue: value) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
