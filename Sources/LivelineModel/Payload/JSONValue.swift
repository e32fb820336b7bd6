import Foundation

/// Any JSON document, as a value: what the payload check reads a file of unknown provenance into,
/// and what custom keys of an alert push hold.
///
/// Numbers compare by value (`7` equals `7.0`), so two documents compare as JSON, not as bytes.
public enum JSONValue: Sendable, Codable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        // Containers first: an object or array is then decoded without failed attempts at every
        // scalar type (each failed attempt builds an error; this is the hot path of every body).
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var fields: [String: JSONValue] = [:]
            for key in object.allKeys { fields[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(fields)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let value = try? c.decode(String.self) {
            self = .string(value)
        } else if let value = try? c.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? c.decode(Int.self) {
            self = .int(value)
        } else {
            self = .double(try c.decode(Double.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let value): try c.encode(value)
        case .int(let value): try c.encode(value)
        case .double(let value): try c.encode(value)
        case .string(let value): try c.encode(value)
        case .array(let value): try c.encode(value)
        case .object(let value): try c.encode(value)
        }
    }

    /// Parses a JSON document (RFC 8259, strictly: ``JSONParser``). A text that is not JSON
    /// throws `DecodingError.dataCorrupted`, the place and reason in its underlying error.
    public init(json: Data) throws {
        self = try JSONParser.parse(json)
    }

    /// Parses a JSON document held in `bytes` (``init(json:)``).
    public init(json bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBufferPointer { try JSONParser.parse($0) }
    }

    /// The value as compact JSON (no whitespace, slashes unescaped, members in name order), as a
    /// sender would write it (``JSONWriter``); `null` for a value holding NaN or an infinity.
    public var compactJSON: Data { Data(compactBytes) }

    /// ``compactJSON`` as bytes.
    public var compactBytes: [UInt8] { JSONWriter.write(self) ?? Array("null".utf8) }

    /// ``compactJSON`` as text.
    public var compactText: String { String(decoding: compactBytes, as: UTF8.self) }

    /// The number of bytes of `compactJSON`.
    public var compactSize: Int { compactBytes.count }

    /// The members of an object, or nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// A number as a Double, or nil.
    public var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The text of a string value, or nil.
    public var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The JSON kind, as a person names it: "a string", "a number", "null", …
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var description: String { compactText }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.int, _), (.double, _):
            if let a = lhs.numberValue, let b = rhs.numberValue { a == b } else { false }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(Double(value))
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }
}

// Literals, so a document can be written in code: `["type": "object", "required": ["id"]]`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
