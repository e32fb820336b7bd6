import Foundation

/// A `DecodingError` told in this package's words: the key path of the value and what it must
/// be, e.g. `nextOpen[1].label is required: a string` — never Foundation's own text (its debug
/// descriptions, Swift type names), which tells a client nothing it can act on.
///
/// What a value must be comes from the thrown error where this package threw it
/// (``DecodingExpectation``: ``JSONEnum`` lists its cases), else from the JSON type decoded;
/// the server says it in the words of the route's documented request schema instead where it has
/// them (`HTTPRequest.refusal(of:)`). The payload check names the key that a phone would fail to
/// decode with it.
public struct DecodingProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of a key path: a member of an object or an element of an array.
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// A required key is not there.
        case missing
        /// `null` where a value is required.
        case null
        /// A value of another JSON type, or one its type does not take (an unknown enum value, a
        /// fraction where a whole number is needed).
        case invalid
        /// A value somewhere in the document that its field cannot take, where Foundation does not
        /// say which: a number with a fraction or beyond 64 bits where a whole number is expected,
        /// a string that is no date where a date is (its error is then at the top).
        case unplaced
        /// The document is not JSON (or not UTF-8).
        case notJSON
    }

    /// Where, from the document's top; empty for the document itself.
    public var path: [Step]
    public var kind: Kind
    /// What a valid value is, in words ("a string", "one of alert, web-push"); nil when the error
    /// does not tell (a missing key says nothing of its type).
    public var expected: String?
    /// What was there instead, in words ("'widgets'", "5", "an array"), when the document was given.
    public var found: String?

    public init(path: [Step], kind: Kind, expected: String? = nil, found: String? = nil) {
        self.path = path
        self.kind = kind
        self.expected = expected
        self.found = found
    }

    /// The problem `error` describes. `document` is what was decoded, parsed (nil when it is not
    /// JSON): it tells what was found, and whether an error Foundation raised at the top is the
    /// document's (not JSON) or a value's it did not place (``Kind/unplaced``).
    public init(_ error: DecodingError, in document: JSONValue?) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: Self.steps(context.codingPath + [key]), kind: .missing, expected: Self.expectation(context))
        case .typeMismatch(let type, let context):
            self.init(path: Self.steps(context.codingPath), kind: .invalid, expected: Self.expectation(context) ?? Self.name(of: type))
        case .valueNotFound(let type, let context):
            self.init(path: Self.steps(context.codingPath), kind: .null, expected: Self.expectation(context) ?? Self.name(of: type))
        case .dataCorrupted(let context):
            if let expected = Self.expectation(context) {
                self.init(path: Self.steps(context.codingPath), kind: .invalid, expected: expected)
            } else if !context.codingPath.isEmpty {
                self.init(path: Self.steps(context.codingPath), kind: .invalid)
            } else if document != nil {
                // JSON that parses, corrupted at the top: a value Foundation did not place.
                self.init(path: [], kind: .unplaced)
            } else {
                self.init(path: [], kind: .notJSON)
            }
        @unknown default:
            self.init(path: [], kind: .invalid)
        }
        if let document, kind == .invalid || kind == .null, let value = Self.value(at: path, in: document) {
            found = Self.words(for: value)
        }
    }

    /// The problem of `error` for the JSON document `data` (which may not parse).
    public init(_ error: DecodingError, in data: Data) {
        self.init(error, in: try? JSONValue(json: data))
    }

    /// ``path`` as text: dotted keys, `[i]` for array elements (`token.keys.auth`, `nextOpen[1].label`).
    public var keyPath: String { Self.text(path) }

    /// What was wrong, after the key path: "is required: a string", "must be one of a, b, not 'c'".
    public var reason: String {
        switch kind {
        case .missing:
            return expected.map { "is required: \($0)" } ?? "is missing"
        case .null:
            return expected.map { "must be \($0), not null" } ?? "must not be null"
        case .invalid:
            switch (expected, found) {
            case (let expected?, let found?): return "must be \(expected), not \(found)"
            case (let expected?, nil): return "must be \(expected)"
            case (nil, let found?): return "is not valid (\(found))"
            case (nil, nil): return "is not valid"
            }
        case .unplaced:
            return "holds a value its field cannot take: a number with a fraction or beyond 64 bits where a whole number is expected, "
                + "or a string that is no date where a date is"
        case .notJSON:
            return "is not valid JSON (UTF-8)"
        }
    }

    /// The problem in one sentence: the key path (`document` for the top) and ``reason``, with
    /// `expected` as what a valid value is when given (the words of a documented schema).
    public func message(expecting expected: String? = nil, document: String = "the document") -> String {
        var problem = self
        if let expected, kind != .unplaced, kind != .notJSON { problem.expected = expected }
        return path.isEmpty ? "\(document) \(problem.reason)" : "\(keyPath) \(problem.reason)"
    }

    public var description: String { message() }

    // MARK: Pieces

    /// The value at `path` in `document`, if it is there.
    public static func value(at path: [Step], in document: JSONValue) -> JSONValue? {
        var value = document
        for step in path {
            switch (step, value) {
            case (.key(let key), .object(let members)):
                guard let member = members[key] else { return nil }
                value = member
            case (.index(let index), .array(let items)):
                guard items.indices.contains(index) else { return nil }
                value = items[index]
            default:
                return nil
            }
        }
        return value
    }

    /// A value as a message shows what was found: a string quoted (its first 40 characters), a
    /// number or literal as written, a container by its kind.
    public static func words(for value: JSONValue) -> String {
        switch value {
        case .string(let text): "'\(text.prefix(40))'"
        case .array, .object: value.kindDescription
        default: value.compactText
        }
    }

    static func text(_ path: [Step]) -> String {
        var out = ""
        for step in path {
            switch step {
            case .index(let index): out += "[\(index)]"
            case .key(let key): out += out.isEmpty ? key : "." + key
            }
        }
        return out
    }

    static func steps(_ codingPath: [any CodingKey]) -> [Step] {
        codingPath.map { key in key.intValue.map(Step.index) ?? .key(key.stringValue) }
    }

    /// What this package's own error says a value must be (``DecodingExpectation``).
    static func expectation(_ context: DecodingError.Context) -> String? {
        (context.underlyingError as? DecodingExpectation)?.expected
    }

    /// The JSON kind of value a Swift type decodes from, in words; nil for a type this cannot
    /// tell (never its Swift name).
    static func name(of type: Any.Type) -> String? {
        switch type {
        case is String.Type, is Substring.Type, is Character.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is any FixedWidthInteger.Type: return "a whole number"
        case is any BinaryFloatingPoint.Type, is Decimal.Type: return "a number"
        default:
            // Foundation names a keyed container's type `Dictionary<String, Any>`, an unkeyed one's `Array<Any>`.
            let name = String(describing: type)
            if name.hasPrefix("Dictionary<") { return "an object" }
            if name.hasPrefix("Array<") || name.hasPrefix("Set<") { return "an array" }
            return nil
        }
    }
}
