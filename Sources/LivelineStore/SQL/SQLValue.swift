import Foundation

/// One value bound to a statement parameter or read from a result column.
///
/// The five storage classes SQLite has and PostgreSQL can map onto (`BIGINT`, `DOUBLE PRECISION`,
/// `TEXT`, `BYTEA`). Times are stored as `integer` unix milliseconds and booleans as `integer` 0/1,
/// so both backends read the same values back.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind for error messages; never the value itself (it may be a token).
    var kindName: String {
        switch self {
        case .null: "NULL"
        case .integer: "an integer"
        case .real: "a real number"
        case .text: "text"
        case .blob: "a blob"
        }
    }
}

extension SQLValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: Double) { self = .real(value) }
    public init(_ value: String) { self = .text(value) }
    /// A boolean as `integer` 0 or 1.
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    /// A date as `integer` unix milliseconds (rounded down to the millisecond).
    public init(_ value: Date) { self = .integer(Self.milliseconds(value)) }
    public init(_ value: [UInt8]) { self = .blob(value) }

    /// `.null` for `nil`, else the wrapped value.
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Bool?) { self = value.map { SQLValue($0) } ?? .null }
    public init(_ value: Date?) { self = value.map { SQLValue($0) } ?? .null }

    /// Unix milliseconds of `date`, rounded down, the stored form of every time.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The date of `milliseconds` since 1970.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
