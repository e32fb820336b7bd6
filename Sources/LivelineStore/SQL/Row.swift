import Foundation

/// One result row, read by column name.
///
/// Accessors throw a ``StoreError`` with code `.column` naming the column when it is missing, NULL
/// where a value is required, or of another type, so a schema drift shows up as a clear message,
/// not a crash. Times are unix milliseconds and booleans 0/1 (see ``SQLValue``).
public struct Row: Sendable, Hashable {
    /// Column name → position, shared by all rows of one result.
    let columns: [String: Int]
    /// The values in column order.
    public let values: [SQLValue]

    /// A row of `values` named by `columns` (first position wins for duplicate names).
    public init(columns: [String: Int], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The column names in order.
    public var columnNames: [String] {
        columns.sorted { $0.value < $1.value }.map(\.key)
    }

    /// The raw value of `column`, or `nil` when the row has no such column.
    public subscript(_ column: String) -> SQLValue? {
        columns[column].map { values[$0] }
    }

    /// The raw value of `column`; throws when the row has no such column.
    public func value(_ column: String) throws -> SQLValue {
        guard let index = columns[column] else {
            throw StoreError(.column, "the result has no column \(column) (it has \(columnNames.joined(separator: ", ")))")
        }
        return values[index]
    }

    public func int64(_ column: String) throws -> Int64 {
        try required(optionalInt64(column), column, expected: "an integer")
    }

    public func optionalInt64(_ column: String) throws -> Int64? {
        switch try value(column) {
        case .null: return nil
        case .integer(let value): return value
        case let other: throw mismatch(column, expected: "an integer", found: other)
        }
    }

    public func int(_ column: String) throws -> Int { Int(try int64(column)) }

    public func optionalInt(_ column: String) throws -> Int? { try optionalInt64(column).map { Int($0) } }

    public func double(_ column: String) throws -> Double {
        try required(optionalDouble(column), column, expected: "a number")
    }

    /// A real number; integers are widened (SQLite stores whole REAL values as integers at times).
    public func optionalDouble(_ column: String) throws -> Double? {
        switch try value(column) {
        case .null: return nil
        case .real(let value): return value
        case .integer(let value): return Double(value)
        case let other: throw mismatch(column, expected: "a number", found: other)
        }
    }

    public func string(_ column: String) throws -> String {
        try required(optionalString(column), column, expected: "text")
    }

    public func optionalString(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let value): return value
        case let other: throw mismatch(column, expected: "text", found: other)
        }
    }

    public func blob(_ column: String) throws -> [UInt8] {
        try required(optionalBlob(column), column, expected: "a blob")
    }

    public func optionalBlob(_ column: String) throws -> [UInt8]? {
        switch try value(column) {
        case .null: return nil
        case .blob(let value): return value
        case let other: throw mismatch(column, expected: "a blob", found: other)
        }
    }

    /// A boolean stored as integer 0 or 1.
    public func bool(_ column: String) throws -> Bool {
        try required(optionalBool(column), column, expected: "0 or 1")
    }

    public func optionalBool(_ column: String) throws -> Bool? {
        switch try value(column) {
        case .null: return nil
        case .integer(0): return false
        case .integer(1): return true
        case .integer: throw StoreError(.column, "column \(column) holds an integer other than 0 or 1 where a boolean was expected")
        case let other: throw mismatch(column, expected: "0 or 1", found: other)
        }
    }

    /// A time stored as integer unix milliseconds.
    public func date(_ column: String) throws -> Date {
        SQLValue.date(milliseconds: try int64(column))
    }

    public func optionalDate(_ column: String) throws -> Date? {
        try optionalInt64(column).map { SQLValue.date(milliseconds: $0) }
    }

    private func required<T>(_ value: T?, _ column: String, expected: String) throws -> T {
        guard let value else { throw StoreError(.column, "column \(column) is NULL where \(expected) was expected") }
        return value
    }

    private func mismatch(_ column: String, expected: String, found: SQLValue) -> StoreError {
        StoreError(.column, "column \(column) holds \(found.kindName) where \(expected) was expected")
    }
}
