/// A set of ASCII characters given as ranges (`a-z`, `0-9`, `.`): what a ``FieldRule`` accepts,
/// checked byte by byte and printed as a regular-expression class from the same ranges.
public struct ASCIISet: Sendable, CustomStringConvertible {
    public let ranges: [ClosedRange<UInt8>]

    public init(_ ranges: [ClosedRange<UInt8>]) {
        precondition(ranges.allSatisfy { $0.upperBound < 0x80 }, "ASCII only")
        self.ranges = ranges
    }

    /// Letters, digits and the given punctuation.
    public static func alphanumerics(and punctuation: String = "") -> ASCIISet {
        ASCIISet(
            [UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9")]
                + punctuation.utf8.map { $0...$0 })
    }

    public func contains(_ byte: UInt8) -> Bool { ranges.contains { $0.contains(byte) } }

    /// The inside of a regular-expression class, e.g. `A-Za-z0-9._\-`.
    public var regexClass: String {
        ranges.map { range in
            range.count == 1 ? Self.escape(range.lowerBound) : "\(Self.escape(range.lowerBound))-\(Self.escape(range.upperBound))"
        }.joined()
    }

    /// For people: `A-Z a-z 0-9 . _ -`.
    public var description: String {
        ranges.map { range in
            range.count == 1
                ? String(UnicodeScalar(range.lowerBound)) : "\(UnicodeScalar(range.lowerBound))-\(UnicodeScalar(range.upperBound))"
        }.joined(separator: " ")
    }

    static func escape(_ byte: UInt8) -> String {
        let character = String(UnicodeScalar(byte))
        return "\\^-[]".utf8.contains(byte) ? "\\" + character : character
    }
}
