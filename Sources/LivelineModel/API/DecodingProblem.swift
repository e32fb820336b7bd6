import Foundation

/// A `DecodingError` told as a key path and a reason a person can act on, e.g.
/// `content-state.nextOpen[1].label`: "missing (expected String)".
///
/// The server names the bad field of a request with it; the payload check names the key that a
/// phone would fail to decode.
public struct DecodingProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Dotted key path with `[i]` for array elements; empty for the document itself.
    public var keyPath: String
    /// What was wrong and what was expected.
    public var reason: String

    public init(keyPath: String, reason: String) {
        self.keyPath = keyPath
        self.reason = reason
    }

    public init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(keyPath: Self.path(context.codingPath + [key]), reason: "is missing")
        case .typeMismatch(let type, let context):
            self.init(keyPath: Self.path(context.codingPath), reason: "expected \(Self.name(of: type))\(Self.detail(context))")
        case .valueNotFound(let type, let context):
            self.init(keyPath: Self.path(context.codingPath), reason: "is null, expected \(Self.name(of: type))")
        case .dataCorrupted(let context):
            let path = Self.path(context.codingPath)
            let reason = context.debugDescription.isEmpty ? "is not valid" : context.debugDescription
            // At the top, a corrupted document is JSON that does not parse (or is not UTF-8).
            self.init(keyPath: path, reason: path.isEmpty ? "is not valid JSON (UTF-8)" : reason)
        @unknown default:
            self.init(keyPath: "", reason: "could not be decoded")
        }
    }

    public var description: String {
        keyPath.isEmpty ? "the body \(reason)" : "\(keyPath): \(reason)"
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out
    }

    static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type, is Float.Type: "a number"
        default:
            String(describing: type).hasPrefix("Dictionary")
                ? "an object" : String(describing: type).hasPrefix("Array") ? "an array" : String(describing: type)
        }
    }

    static func detail(_ context: DecodingError.Context) -> String {
        // Foundation's messages add the found type: "Expected to decode String but found number instead."
        if let range = context.debugDescription.range(of: "but found ") {
            return ", found "
                + context.debugDescription[range.upperBound...]
                .replacingOccurrences(of: " instead.", with: "")
        }
        return ""
    }
}
