import Foundation
import LivelineHTTP
import LivelineModel

/// A request body's documented JSON schema — the one `/openapi.json` prints for the route —
/// read as words: what a valid value at a key path is, for the 400 of a body that does not decode
/// (``BodyDescription``). Made from the schema, so every documented body is described, and a
/// refusal says what the document promises (`docs/reliability.md`, "The API contract").
///
/// `$ref`s are resolved through `schemas` (the document's `components.schemas`), and a key is
/// looked up in every alternative of a `oneOf`/`anyOf`: `kind` of `RegisterToken` is the
/// union of its variants' enums. A schema's own `description` is its words where it has one
/// (a ``FieldRule``'s is its ``FieldRule/expectation``); `null` alternatives (a left-out optional
/// field) are not mentioned.
public struct RequestSchema: BodyDescription {
    /// The body's schema (a `$ref`, or the schema itself).
    public let root: JSONValue
    /// The schemas `$ref`s name, by name; asked for only when a body is refused.
    public let schemas: @Sendable () -> [String: JSONValue]

    public init(root: JSONValue, schemas: @escaping @Sendable () -> [String: JSONValue] = { [:] }) {
        self.root = root
        self.schemas = schemas
    }

    /// The body documented as the component schema `name`.
    public init(named name: String, schemas: @escaping @Sendable () -> [String: JSONValue]) {
        self.init(root: Schema.ref(name), schemas: schemas)
    }

    public func expectation(at path: [DecodingProblem.Step]) -> String? {
        let components = schemas()
        let leaves = schemas(at: path, components)
        return leaves.isEmpty ? nil : Self.words(leaves, components)
    }

    public func firstUnfitValue(in document: JSONValue) -> [DecodingProblem.Step]? {
        let components = schemas()
        func unfit(_ value: JSONValue, _ path: [DecodingProblem.Step]) -> [DecodingProblem.Step]? {
            switch value {
            case .double(let number):
                let whole = number == number.rounded() && abs(number) < 9.223_372_036_854_775_807e18
                let leaves = schemas(at: path, components)
                return !whole && !leaves.isEmpty && leaves.allSatisfy({ Self.types(of: $0) == ["integer"] }) ? path : nil
            case .string(let text):
                let leaves = schemas(at: path, components)
                let dates = !leaves.isEmpty && leaves.allSatisfy { $0.objectValue?["format"]?.stringValue == "date-time" }
                return dates && (try? Date.ISO8601FormatStyle().parse(text)) == nil ? path : nil
            case .array(let items):
                return items.indices.lazy.compactMap { unfit(items[$0], path + [.index($0)]) }.first
            case .object(let members):
                return members.keys.sorted().lazy.compactMap { unfit(members[$0]!, path + [.key($0)]) }.first
            default:
                return nil
            }
        }
        return unfit(document, [])
    }

    /// The schemas a value at `path` may be valid for (one per alternative that reaches there).
    func schemas(at path: [DecodingProblem.Step], _ components: [String: JSONValue]) -> [JSONValue] {
        var current = Self.resolve(root, components)
        for step in path {
            current = current.flatMap { schema -> [JSONValue] in
                guard case .object(let fields) = schema else { return [] }
                switch step {
                case .key(let key):
                    guard case .object(let properties)? = fields["properties"], let property = properties[key] else { return [] }
                    return Self.resolve(property, components)
                case .index:
                    guard let items = fields["items"] else { return [] }
                    return Self.resolve(items, components)
                }
            }
        }
        return current
    }

    /// `schema` with its `$ref` followed and, when it is a choice of alternatives (no `type` of
    /// its own), those alternatives; `null` ones are dropped unless nothing else is left.
    static func resolve(_ schema: JSONValue, _ components: [String: JSONValue], depth: Int = 0) -> [JSONValue] {
        guard depth < 16, case .object(let fields) = schema else { return [] }
        if case .string(let target)? = fields["$ref"] {
            guard let name = target.split(separator: "/").last, let referenced = components[String(name)] else { return [] }
            return resolve(referenced, components, depth: depth + 1)
        }
        if fields["type"] == nil, fields["enum"] == nil, fields["const"] == nil {
            for key in ["oneOf", "anyOf"] {
                guard case .array(let alternatives)? = fields[key] else { continue }
                let all = alternatives.flatMap { resolve($0, components, depth: depth + 1) }
                let values = all.filter { types(of: $0) != ["null"] }
                return values.isEmpty ? all : values
            }
        }
        return [schema]
    }

    /// The JSON types a schema names (`type` as a string or a list).
    static func types(of schema: JSONValue) -> [String] {
        guard case .object(let fields) = schema else { return [] }
        switch fields["type"] {
        case .string(let type)?: return [type]
        case .array(let types)?: return types.compactMap(\.stringValue)
        default: return []
        }
    }

    /// What a value valid for one of `schemas` is: "one of …" when each lists its values, else
    /// each one's words, joined by "or".
    static func words(_ schemas: [JSONValue], _ components: [String: JSONValue]) -> String {
        let listed = schemas.map(values(of:))
        if listed.allSatisfy({ !$0.isEmpty }) {
            var union: [String] = []
            for value in listed.joined() where !union.contains(value) { union.append(value) }
            // One field's own words name its values already ("the token's APNs environment: one of sandbox, production").
            if schemas.count == 1, let description = description(of: schemas[0]), union.allSatisfy(description.contains) { return description }
            return "one of " + union.joined(separator: ", ")
        }
        var out: [String] = []
        for schema in schemas {
            let text = words(schema, components)
            if !out.contains(text) { out.append(text) }
        }
        return out.joined(separator: " or ")
    }

    /// The values an `enum` or `const` allows, as they are written in JSON (strings bare).
    static func values(of schema: JSONValue) -> [String] {
        guard case .object(let fields) = schema else { return [] }
        let values: [JSONValue] =
            if case .array(let values)? = fields["enum"] { values } else if let value = fields["const"] { [value] } else { [] }
        return values.map { $0.stringValue ?? $0.compactText }
    }

    static func description(of schema: JSONValue) -> String? {
        guard case .object(let fields) = schema, case .string(let text)? = fields["description"], !text.isEmpty else { return nil }
        return text
    }

    /// One schema in words: its `description`, else what its type and bounds say.
    static func words(_ schema: JSONValue, _ components: [String: JSONValue]) -> String {
        if let description = description(of: schema) { return description }
        guard case .object(let fields) = schema else { return "a JSON value" }
        let named = types(of: schema).filter { $0 != "null" }
        guard !named.isEmpty else { return "a JSON value" }
        return named.map { type -> String in
            switch type {
            case "string":
                switch fields["format"]?.stringValue {
                case "date-time"?: return "a date and time as in RFC 3339, e.g. 2026-01-05T08:00:00Z"
                case "date"?: return "a day written YYYY-MM-DD, e.g. 2026-01-05"
                default: break
                }
                if let low = fields["minLength"]?.numberValue, let high = fields["maxLength"]?.numberValue {
                    return "a string of \(Int(low)) to \(Int(high)) characters"
                }
                return "a string"
            case "integer":
                let (low, high) = (wholeNumber(fields["minimum"]), wholeNumber(fields["maximum"]))
                switch (low, high) {
                case (let low?, let high?) where low != Int.min || high != Int.max: return "a whole number from \(low) to \(high)"
                case (let low?, nil): return "a whole number of at least \(low)"
                default: return "a whole number"
                }
            case "number":
                if let low = fields["minimum"]?.numberValue, let high = fields["maximum"]?.numberValue {
                    return "a number from \(number(low)) to \(number(high))"
                }
                return "a number"
            case "boolean":
                return "true or false"
            case "array":
                let items = fields["items"].map { resolve($0, components) } ?? []
                return items.isEmpty ? "an array" : "an array, each element \(words(items, components))"
            case "object":
                guard case .array(let required)? = fields["required"], !required.isEmpty else { return "an object" }
                let names = required.compactMap(\.stringValue)
                return "an object with " + (names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!)
            default:
                return type
            }
        }.joined(separator: " or ")
    }

    /// A bound written as a whole number (`Int.max` too, which a `Double` cannot hold exactly).
    static func wholeNumber(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let number)?: number
        case .double(let number)? where number == number.rounded() && abs(number) < 9e15: Int(number)
        default: nil
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
