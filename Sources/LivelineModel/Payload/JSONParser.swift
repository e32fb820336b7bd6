import Foundation

/// Reads a JSON text (RFC 8259) straight into a ``JSONValue``, in one pass over its UTF-8 bytes.
///
/// `JSONDecoder` reaches the same values through `Codable`: every scalar is found by attempts that
/// fail and throw (a keyed container, an unkeyed one, a string, a bool…), which made it most of the
/// cost of a `PUT /v1/contexts/…` (`docs/decisions/the-write-path-json-without-codable.md`).
/// `JSONSerialization`, the other Foundation path, is fast but lenient on Linux (it takes `[1,]`).
/// This reader is strict where RFC 8259 is: no trailing commas, no leading zeros, no raw control
/// characters in strings, valid UTF-8 only (RFC 8259 §8.1), escapes `\uD83D\uDE00` joined into one
/// scalar and a lone surrogate refused; members repeated in an object keep the first (as
/// `JSONDecoder` does). Numbers without a fraction or exponent that fit in an `Int` are `.int`, the
/// others `.double` (a number outside `Double`'s range is refused). Nesting deeper than
/// ``maxDepth`` is refused, like `JSONDecoder`.
///
/// A failure throws `DecodingError.dataCorrupted` whose underlying `NSError` carries the place
/// and the reason in `NSDebugDescriptionErrorKey`, the shape Foundation's decoders throw.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted (`JSONDecoder`'s limit).
    static let maxDepth = JSONNesting.limit

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The document in `data`: one value, with only whitespace around it.
    static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            try parse(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }

    /// The document in `bytes`: one value, with only whitespace around it.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark may be ignored (RFC 8259 §8.1); JSONDecoder does.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    // MARK: Values

    private mutating func value() throws -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of the text, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected \(describe(bytes[index])), expected a value")
        }
    }

    private mutating func object() throws -> JSONValue {
        try enter()
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw failure(expected: "a member name in double quotes") }
            let key = try string()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure(expected: "':' after the member name") }
            index += 1
            skipWhitespace()
            let member = try value()
            if members[key] == nil { members[key] = member }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw failure(expected: "',' or '}' after an object member")
            }
        }
    }

    private mutating func array() throws -> JSONValue {
        try enter()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw failure(expected: "',' or ']' after an array element")
            }
        }
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("arrays and objects are nested more than \(Self.maxDepth) deep") }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] })
        else { throw failure("unexpected \(describe(bytes[index])), expected a value") }
        index += count
        return value
    }

    // MARK: Strings

    /// A string from its opening quote; the common case (no escapes) is decoded from the bytes
    /// in place once they were found to be valid UTF-8.
    private mutating func string() throws -> String {
        index += 1  // "
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            case UInt8(ascii: "\\"):
                return try escapedString(from: start)
            case 0..<0x20:
                throw failure("a control character (U+\(hex(byte, digits: 4))) must be escaped in a string")
            case 0x80...:
                try skipMultibyteScalar()
            default:
                index += 1
            }
        }
        throw failure("unexpected end of the text inside a string")
    }

    /// The rest of a string that holds escapes, from `start` (after its opening quote).
    private mutating func escapedString(from start: Int) throws -> String {
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: String(try unicodeEscape()).utf8)
                default:
                    index -= 1
                    throw failure("\\\(describe(escape, quoted: false)) is not an escape; expected \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX")
                }
            case 0..<0x20:
                throw failure("a control character (U+\(hex(byte, digits: 4))) must be escaped in a string")
            case 0x80...:
                let scalarStart = index
                try skipMultibyteScalar()
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[scalarStart..<index]))
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw failure("unexpected end of the text inside a string")
    }

    /// The scalar of `\uXXXX` (after the `u`), joining a surrogate pair written as two escapes.
    private mutating func unicodeEscape() throws -> Character {
        let first = try hexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("\\u\(hex(first, digits: 4)) is the first half of a surrogate pair, and no second half follows")
            }
            index += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw failure("\\u\(hex(second, digits: 4)) cannot follow \\u\(hex(first, digits: 4)): a surrogate pair needs \\uDC00…\\uDFFF second")
            }
            return Character(Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!)
        case 0xDC00...0xDFFF:
            throw failure("\\u\(hex(first, digits: 4)) is the second half of a surrogate pair without its first")
        default:
            return Character(Unicode.Scalar(first)!)
        }
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of the text in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape takes four hexadecimal digits, found \(describe(byte))")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Steps over one UTF-8 sequence of two to four bytes, refusing what is not UTF-8 (overlong
    /// forms, surrogates, beyond U+10FFFF; the Unicode Standard, table 3-7).
    private mutating func skipMultibyteScalar() throws {
        let lead = bytes[index]
        let count: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0:
            count = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED:
            count = 3
            high = 0x9F
        case 0xF0:
            count = 4
            low = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4:
            count = 4
            high = 0x8F
        default: throw failure("the text is not UTF-8 (byte 0x\(hex(lead, digits: 2)))")
        }
        guard index + count <= bytes.count else { throw failure("the text is not UTF-8 (a sequence cut short)") }
        guard (low...high).contains(bytes[index + 1]) else { throw failure("the text is not UTF-8 (byte 0x\(hex(bytes[index + 1], digits: 2)))") }
        for offset in 2..<max(2, count) where !(0x80...0xBF).contains(bytes[index + offset]) {
            throw failure("the text is not UTF-8 (byte 0x\(hex(bytes[index + offset], digits: 2)))")
        }
        index += count
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6).
    private mutating func number() throws -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw failure(expected: "a digit in the number") }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek(), isDigit(next) { throw failure("a number cannot start with 0 followed by digits") }
        skipDigits()
        var integral = true
        if peek() == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard let digit = peek(), isDigit(digit) else { throw failure(expected: "a digit after the decimal point") }
            skipDigits()
        }
        if let letter = peek(), letter == UInt8(ascii: "e") || letter == UInt8(ascii: "E") {
            integral = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { throw failure(expected: "a digit in the exponent") }
            skipDigits()
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if integral, let whole = Self.integer(text) { return .int(whole) }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else {
            index = start
            throw failure("the number \(String(decoding: text, as: UTF8.self)) is outside the range of a 64-bit floating point number")
        }
        return .double(double)
    }

    /// The digits (with an optional `-`) as an `Int`, or nil when it does not fit.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        let negative = text.first == UInt8(ascii: "-")
        var value = 0
        for byte in text.dropFirst(negative ? 1 : 0) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let digit = Int(byte - UInt8(ascii: "0"))
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: Helpers

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private func failure(expected: String) -> DecodingError {
        guard index < bytes.count else { return failure("unexpected end of the text, expected \(expected)") }
        return failure("unexpected \(describe(bytes[index])), expected \(expected)")
    }

    /// The error for a problem at the current place: line and column (1-based, in bytes).
    private func failure(_ reason: String) -> DecodingError {
        var line = 1
        var lineStart = 0
        for offset in 0..<min(index, bytes.count) where bytes[offset] == UInt8(ascii: "\n") {
            line += 1
            lineStart = offset + 1
        }
        let place = "line \(line), column \(index - lineStart + 1)"
        let underlying = NSError(
            domain: NSCocoaErrorDomain, code: 3840, userInfo: [NSDebugDescriptionErrorKey: "\(reason) (\(place))"])
        return DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: underlying))
    }

    private func describe(_ byte: UInt8, quoted: Bool = true) -> String {
        let text = (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "byte 0x\(hex(byte, digits: 2))"
        return quoted && (0x21..<0x7F).contains(byte) ? "'\(text)'" : text
    }

    private func hex<Number: BinaryInteger>(_ value: Number, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
