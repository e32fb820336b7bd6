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
