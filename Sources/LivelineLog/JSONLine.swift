/// Builds one JSON object on one line, field by field, for structured logs. Strings are escaped
/// as RFC 8259 requires; nothing else is accepted, so a line is always valid JSON.
public struct JSONLine: Sendable {
    private var text = "{"
    private var isEmpty = true

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        separator()
        JSONLine.appendString(key, to: &text)
        text += ":"
        JSONLine.appendString(value, to: &text)
    }

    public mutating func add(_ key: String, _ value: Int) {
        separator()
        JSONLine.appendString(key, to: &text)
        text += ":" + String(value)
    }

    public mutating func add(_ key: String, _ value: Double) {
        separator()
        JSONLine.appendString(key, to: &text)
        text += ":" + (value.isFinite ? String(value) : "null")
    }

    public mutating func add(_ key: String, _ value: Bool) {
        separator()
        JSONLine.appendString(key, to: &text)
        text += value ? ":true" : ":false"
    }

    /// The finished line.
    public var string: String { text + "}" }

    private mutating func separator() {
        if isEmpty { isEmpty = false } else { text += "," }
    }

    static func appendString(_ value: String, to out: inout String) {
        out += "\""
        // Most values need no escaping: append them whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
