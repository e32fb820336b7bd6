/// Builds one JSON object on one line, field by field, for structured logs. Strings are escaped
/// as RFC 8259 requires; nothing else is accepted, so a line is always valid JSON. Built on UTF-8
/// bytes: the access log writes one line per request.
public struct JSONLine: Sendable {
    private var bytes: [UInt8]

    public init() {
        bytes = []
        bytes.reserveCapacity(192)
        bytes.append(UInt8(ascii: "{"))
    }

    public mutating func add(_ key: String, _ value: String) {
        member(key)
        Self.appendString(value, to: &bytes)
    }

    public mutating func add(_ key: String, _ value: Int) {
        member(key)
        Self.appendInteger(value, to: &bytes)
    }

    public mutating func add(_ key: String, _ value: Double) {
        member(key)
        if value.isFinite { bytes.append(contentsOf: value.description.utf8) } else { bytes.append(contentsOf: "null".utf8) }
    }

    public mutating func add(_ key: String, _ value: Bool) {
        member(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// The finished line.
    public var string: String { String(decoding: bytes, as: UTF8.self) + "}" }

    /// Appends the finished line and a newline to `buffer` (``LogSink``), without a copy of its own.
    func appendLine(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "\n")])
    }

    /// The separator when a member came before, the key, the colon.
    private mutating func member(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        // Digits from the last, on the stack, then appended at once (Int.min has 19 and a sign).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                index -= 1
                digits[index] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    static func appendString(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    private static func appendString(utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var plain = utf8.startIndex  // the start of the bytes not yet appended, which need no escape
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain..<index]))
            plain = index + 1
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default:
                out.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigit(byte >> 4), hexDigit(byte & 0xF),
                ])
            }
        }
        // Other characters' UTF-8 bytes (a String's are always valid) go as they are.
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain...]))
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
