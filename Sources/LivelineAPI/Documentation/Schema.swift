import LivelineEngine
import LivelineModel

/// Building blocks of the JSON schemas in `/openapi.json` (OpenAPI 3.1: JSON Schema 2020-12).
public enum Schema {
    public static let string: JSONValue = ["type": "string"]
    public static let integer: JSONValue = ["type": "integer"]
    public static let boolean: JSONValue = ["type": "boolean"]
    public static let dateTime: JSONValue = ["type": "string", "format": "date-time"]
    public static let nullableString: JSONValue = ["type": ["string", "null"]]
    public static let nullableNumber: JSONValue = ["type": ["number", "null"]]
    public static let nullableInteger: JSONValue = ["type": ["integer", "null"]]

    /// A reference to the schema `name` of `components.schemas`.
    public static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    /// An object schema; every property is required unless `required` says otherwise.
    public static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String]? = nil) -> JSONValue {
        let names = required ?? properties.map(\.key)
        return [
            "type": "object",
            "properties": .object(Dictionary(uniqueKeysWithValues: properties.map { ($0.key, $0.value) })),
            "required": .array(names.map { .string($0) }),
        ]
    }

    /// `schema` with `examples` (JSON Schema 2020-12 `examples`): a valid value each, which
    /// clients and test generators start from.
    public static func examples(_ schema: JSONValue, _ examples: [JSONValue]) -> JSONValue {
        guard case .object(var fields) = schema else { return schema }
        fields["examples"] = .array(examples)
        return .object(fields)
    }

    /// `schema`, valid only when also valid for one or more of `alternatives`.
    public static func anyOf(_ schema: JSONValue, _ alternatives: [JSONValue]) -> JSONValue {
        guard case .object(var fields) = schema else { return schema }
        fields["anyOf"] = .array(alternatives)
        return .object(fields)
    }

    /// `schema`, with at least one of `names` given and not null (a change that names nothing is
    /// refused), except those of `nullCounts`, for which null is a change too.
    public static func anyOfRequired(_ schema: JSONValue, _ names: [String], nullCounts: Set<String> = []) -> JSONValue {
        guard case .object(var fields) = schema else { return schema }
        fields["anyOf"] = .array(
            names.map { name in
                nullCounts.contains(name)
                    ? ["required": [.string(name)]]
                    : ["required": [.string(name)], "properties": .object([name: ["not": ["type": "null"]]])]
            })
        return .object(fields)
    }

    /// `schema` with every optional property of every object in it allowing `null` as well: a
    /// request body's optional field decodes null as left out (Swift's `decodeIfPresent`).
    public static func nullableOptionals(_ schema: JSONValue) -> JSONValue {
        guard case .object(var fields) = schema else {
            if case .array(let items) = schema { return .array(items.map(nullableOptionals)) }
            return schema
        }
        for key in ["oneOf", "anyOf", "allOf", "items"] {
            if let value = fields[key] { fields[key] = nullableOptionals(value) }
        }
        if case .object(let properties)? = fields["properties"] {
            var required: Set<String> = []
            if case .array(let names)? = fields["required"] {
                for case .string(let name) in names { required.insert(name) }
            }
            fields["properties"] = .object(
                properties.reduce(into: [:]) { out, property in
                    let inner = nullableOptionals(property.value)
                    out[property.key] = required.contains(property.key) || allowsNull(inner) ? inner : ["anyOf": [inner, ["type": "null"]]]
                })
        }
        return .object(fields)
    }

    /// Whether `schema` says outright that null is valid.
    static func allowsNull(_ schema: JSONValue) -> Bool {
        guard case .object(let fields) = schema else { return false }
        switch fields["type"] {
        case .string("null"): return true
        case .array(let types): return types.contains(.string("null"))
        default: break
        }
        for key in ["anyOf", "oneOf"] {
            if case .array(let options)? = fields[key], options.contains(where: allowsNull) { return true }
        }
        return false
    }

    /// The `starts` of a start's answer: one outcome per device (or per user without a start
    /// token), as ``StartOutcome`` reports them.
    public static let startOutcomes: JSONValue = [
        "type": "array",
        "items": object(
            [
                "outcome": ["type": "string", "enum": .array(StartOutcome.Kind.allCases.map { .string($0.rawValue) })],
                "deviceId": string, "userId": integer, "reason": string,
            ], required: ["outcome"]),
    ]
}

/// What a part of the server (the core, or a feature) documents: its routes and the schemas of
/// their bodies, by name.
public struct APIDocumentationPart: Sendable {
    public var routes: [RouteDocumentation]
    public var schemas: [String: JSONValue]

    public init(routes: [RouteDocumentation], schemas: [String: JSONValue]) {
        self.routes = routes
        self.schemas = schemas
    }
}
