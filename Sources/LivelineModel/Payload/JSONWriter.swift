import Foundation

/// Writes a ``JSONValue`` as compact JSON (RFC 8259): no whitespace, object members in the order
/// of their names (`String`'s `<`: the same value always gives the same bytes), `/` unescaped, other
/// text as `JSONEncoder` writes it (`\"`, `\\`, `\b` `\f` `\n` `\r` `\t`, other control characters
/// as `\u00XX`, the rest as UTF-8) and numbers as it writes them (`1` for `1.0`, `1e+20`).
///
/// `JSONEncoder` took most of the cost of rendering a push and checking a `PUT`
/// (`docs/decisions/the-write-path-json-without-codable.md`); this writes the same document
/// straight into one byte buffer.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    /// `value` as bytes; nil when it holds a number JSON cannot carry (NaN, an infinity).
    static func write(_ value: JSONValue) -> [UInt8]? {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(256)
        guard writer.append(value) else { return nil }
        return writer.bytes
    }

    private mutating func append(_ value: JSONValue) -> Bool {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): bytes.append(contentsOf: String(number).utf8)
        case .double(let number):
            guard number.isFinite else { return false }
            bytes.append(contentsOf: Self.text(of: number).utf8)
        case .string(let text): appendString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                guard append(element) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (offset, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(member.key)
                bytes.append(UInt8(ascii: ":"))
                guard append(member.value) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// A finite double as `JSONEncoder` writes it: Swift's shortest round-trip form, without a
    /// trailing `.0`.
    static func text(of number: Double) -> String {
        let text = number.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most text needs no escape: then it goes in whole.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let digits: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
