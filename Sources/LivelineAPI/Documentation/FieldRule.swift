import LivelineHTTP
import LivelineModel

/// One input field, declared once: a path or query parameter, or a field of a JSON body. The
/// handler checks a value with it (a refusal is a 400 naming the field and saying what it must
/// be), and `/openapi.json` prints its ``schema``: the document promises exactly what the check
/// accepts, and a change of the rule changes both (`docs/reliability.md`, "The API contract").
public struct FieldRule: Sendable {
    public enum Kind: Sendable {
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A finite number in the range.
        case number(ClosedRange<Double>)
        /// Text of `length` Unicode scalars, never U+0000 (PostgreSQL stores no NUL in text); of
        /// `characters` only, when given; with at least one scalar that is not white space, when
        /// `nonBlank`; a match of `format`, when given (whose pattern is then the whole rule
        /// besides the length: neither `characters` nor `nonBlank` go with it).
        case text(length: ClosedRange<Int>, characters: ASCIISet? = nil, nonBlank: Bool = false, format: TextFormat? = nil)
        /// One of these strings.
        case oneOf([String])
    }

    public let name: String
    public let kind: Kind
    /// What the field is, for people (the document's `description`).
    public let about: String
    /// A query parameter that must be given (path parameters always are).
    public let required: Bool
    /// The name of the schema in `components.schemas` the document prints once for this rule,
    /// and refers to (`$ref`) wherever the rule is used; nil prints the schema in place.
    public let component: String?
    /// A valid value the document shows (`examples`), where a valid one depends on more than the
    /// rule (a contract's type must name the body's).
    public var example: String?

    public init(_ name: String, _ kind: Kind, about: String = "", required: Bool = false, component: String? = nil) {
        if case .text(_, let characters, let nonBlank, _?) = kind {
            precondition(characters == nil && !nonBlank, "\(name): a format's pattern is the whole rule (the document prints only it)")
        }
        self.name = name
        self.kind = kind
        self.about = about
        self.required = required
        self.component = component
    }

    /// The same rule under another name (`by` in a body and in a query, say).
    public func named(_ name: String, required: Bool? = nil) -> FieldRule {
        var rule = FieldRule(name, kind, about: about, required: required ?? self.required, component: component)
        rule.example = example
        return rule
    }

    /// The same rule with `value` as its document's example.
    public func example(_ value: String) -> FieldRule {
        var rule = self
        rule.example = value
        return rule
    }

    // MARK: Checks

    /// A path or query parameter's text, checked; a whole number for `.integer`.
    public func integer(text: String) throws -> Int {
        guard case .integer(let range) = kind else { preconditionFailure("\(name) is not a whole number") }
        guard let value = Self.wholeNumber(text), range.contains(value) else { throw refusal(text) }
        return value
    }

    /// A whole number written as text: digits, or a JSON number whose value is whole (`1.0`,
    /// `1e+16`: JSON Schema's `integer` takes those, and an API client may print one so).
    public static func wholeNumber(_ text: String) -> Int? {
        if let value = Int(text) { return value }
        guard text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil, let double = Double(text),
            double == double.rounded(), abs(double) < 9_007_199_254_740_992
        else { return nil }
        return Int(double)
    }

    /// A whole number of a body, checked.
    @discardableResult
    public func integer(_ value: Int) throws -> Int {
        guard case .integer(let range) = kind else { preconditionFailure("\(name) is not a whole number") }
        guard range.contains(value) else { throw refusal(String(value)) }
        return value
    }

    /// A number of a body, checked.
    @discardableResult
    public func number(_ value: Double) throws -> Double {
        guard case .number(let range) = kind else { preconditionFailure("\(name) is not a number") }
        guard value.isFinite, range.contains(value) else { throw refusal(String(value)) }
        return value
    }

    /// Text (a parameter, or a string of a body), checked.
    @discardableResult
    public func text(_ value: String) throws -> String {
        guard accepts(value) else { throw refusal(value) }
        return value
    }

    /// The optional query parameter `name` of `request`, checked as a whole number.
    public func integerQuery(of request: HTTPRequest) throws -> Int? {
        guard let text = request.query[name] else {
            if required { throw HTTPError.badRequest("\(name) is required: \(expectation)", field: name) }
            return nil
        }
        return try integer(text: text)
    }

    /// The optional query parameter `name` of `request`, checked as text.
    public func textQuery(of request: HTTPRequest) throws -> String? {
        guard let text = request.query[name] else {
            if required { throw HTTPError.badRequest("\(name) is required: \(expectation)", field: name) }
            return nil
        }
        return try self.text(text)
    }

    /// Whether text is valid for this rule.
    public func accepts(_ value: String) -> Bool {
        switch kind {
        case .integer(let range):
            return Self.wholeNumber(value).map(range.contains) ?? false
        case .number(let range):
            return Double(value).map { $0.isFinite && range.contains($0) } ?? false
        case .oneOf(let values):
            return values.contains(value)
        case .text(let length, let characters, let nonBlank, let format):
            let scalars = value.unicodeScalars
            guard length.contains(scalars.count) else { return false }
            if let characters, !value.utf8.allSatisfy(characters.contains) { return false }
            if value.utf8.contains(0) { return false }
            if nonBlank, scalars.allSatisfy(FieldRule.isWhiteSpace) { return false }
            if let format, !format.isValid(value) { return false }
            return true
        }
    }

    /// The 400 for a value that is not valid.
    public func refusal(_ value: String) -> HTTPError {
        HTTPError.badRequest("\(name) must be \(expectation), not '\(value.prefix(40))'", field: name)
    }

    /// What a valid value is, in words.
    public var expectation: String {
        let what =
            switch kind {
            case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .number(let range): "a number from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound))"
            case .oneOf(let values): "one of \(values.joined(separator: ", "))"
            case .text(let length, let characters, let nonBlank, let format):
                if let format {
                    format.about
                } else {
                    "\(length.lowerBound) to \(length.upperBound) "
                        + (characters.map { "of the characters \($0.description)" } ?? "characters but U+0000")
                        + (nonBlank ? ", not only white space" : "")
                }
            }
        return about.isEmpty ? what : "\(about): \(what)"
    }

    // MARK: Schema

    /// The JSON schema of a valid value, as the document prints it.
    public var schema: JSONValue {
        var schema: [String: JSONValue]
        switch kind {
        case .integer(let range):
            schema = ["type": "integer", "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound)]
        case .number(let range):
            schema = ["type": "number", "minimum": .double(range.lowerBound), "maximum": .double(range.upperBound)]
        case .oneOf(let values):
            schema = ["type": "string", "enum": .array(values.map(JSONValue.string))]
        case .text(let length, let characters, let nonBlank, let format):
            schema = ["type": "string", "minLength": .int(length.lowerBound), "maxLength": .int(length.upperBound)]
            if let characters {
                schema["pattern"] = .string("^[\(characters.regexClass)]*$")
            } else if nonBlank {
                schema["pattern"] = .string("^[^\\u0000]*[^\\u0000\(Self.whiteSpaceClass)][^\\u0000]*$")
            } else {
                schema["pattern"] = .string("^[^\\u0000]*$")
            }
            if let format {
                schema["pattern"] = .string(format.pattern)
                if let standard = format.format { schema["format"] = .string(standard) }
            }
        }
        if !about.isEmpty { schema["description"] = .string(expectation) }
        if let example { schema["examples"] = [.string(example)] }
        return .object(schema)
    }

    /// Where the rule is used: a reference to its ``component`` when it has one, else its
    /// ``schema``.
    public var reference: JSONValue { component.map(Schema.ref) ?? schema }

    /// The components this rule prints once (``component``): its name and ``schema``.
    public var components: [String: JSONValue] { component.map { [$0: schema] } ?? [:] }

    /// The parameter object of a path (`in: "path"`) or query parameter.
    public func parameter(in location: String) -> JSONValue {
        [
            "name": .string(name), "in": .string(location), "required": .bool(location == "path" || required),
            "description": .string(expectation), "schema": reference,
        ]
    }

    // MARK: White space

    /// Unicode's White_Space scalars (what Foundation's `whitespacesAndNewlines` trims).
    public static let whiteSpace: [ClosedRange<UInt32>] = [
        0x09...0x0D, 0x20...0x20, 0x85...0x85, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029, 0x202F...0x202F,
        0x205F...0x205F, 0x3000...0x3000,
    ]

    public static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool { whiteSpace.contains { $0.contains(scalar.value) } }

    /// ``whiteSpace`` as the inside of a regular-expression class (`\uXXXX` escapes, which
    /// ECMA-262 and Python read alike; JSON Schema's `\s` differs between them).
    static var whiteSpaceClass: String {
        whiteSpace.map { range in
            let low = escape(range.lowerBound)
            return range.count == 1 ? low : "\(low)-\(escape(range.upperBound))"
        }.joined()
    }

    static func escape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
