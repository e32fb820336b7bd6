import Foundation

extension JSONDecoder {
    /// Decodes `data` as `decode(_:from:)` does, first refusing a document whose arrays and
    /// objects nest deeper than `JSONDecoder`'s own limit (512), with a `DecodingError` that
    /// ``DecodingProblem`` tells in words.
    ///
    /// This toolchain's `JSONDecoder` traps instead of throwing when a text ends right after its
    /// 513th opening bracket (`[` 513 times), which would stop a server at one request. Every text
    /// that comes from outside the process is decoded through this.
    public func decode<T: Decodable>(_ type: T.Type, fromUntrusted data: Data) throws -> T {
        if JSONNesting.exceeds(JSONNesting.limit, in: data) {
            let expected = "a JSON document whose arrays and objects nest at most \(JSONNesting.limit) deep"
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: expected, underlyingError: DecodingExpectation(expected)))
        }
        return try decode(type, from: data)
    }
}

/// How deep a JSON text nests its arrays and objects, counted without parsing it.
public enum JSONNesting {
    /// The deepest nesting `JSONDecoder` and ``JSONValue/init(json:)`` take.
    public static let limit = 512

    /// Whether the brackets and braces outside strings in `bytes` open more than `limit` levels at
    /// some point (whether the text is otherwise JSON is left to the parser).
    public static func exceeds(_ limit: Int, in bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { raw in
            var depth = 0
            var inString = false
            var escaped = false
            for byte in raw {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > limit { return true }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(depth - 1, 0)
                default: break
                }
            }
            return false
        }
    }
}
