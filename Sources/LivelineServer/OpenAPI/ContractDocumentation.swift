import Foundation
import LivelineAPI
import LivelineModel

/// The JSON schemas of the contracts' attributes and content states, made from the same
/// ``ContractSchema`` declarations the payload check validates with: `PUT /v1/contexts/{key}`
/// is documented as one variant per contract type.
enum ContractDocumentation {
    /// The body of a put: one variant per contract, with its own attributes and content state.
    static func putContext(registry: ContractRegistry, now: Date) -> JSONValue {
        // The check's own range for today (the document is made again each UTC day).
        let dates = DateRules.plausibleContentDates(now: now)
        let date: JSONValue = [
            "type": "number", "minimum": .double(dates.lowerBound), "maximum": .double(dates.upperBound),
            "description": "seconds since 2001-01-01 00:00:00 UTC (Swift's Date), within about ten years of today",
        ]
        let variants: [JSONValue] = registry.contracts.map { contract in
            Schema.object(
                [
                    "type": ["type": "string", "const": .string(contract.typeName)],
                    "attributes": nullable(
                        object(contract.schema.attributes, date: date), unless: contract.schema.attributes.contains { !$0.isOptional }),
                    "contentState": object(contract.schema.contentState, date: date, filledIn: ["rev"]),
                    "alert": nullable(ref("Alert")),
                    "priority": nullable(["type": "integer", "enum": [5, 10]]),
                    "relevanceScore": nullable(ContextFields.relevanceScore.schema),
                ],
                required: contract.schema.attributes.contains { !$0.isOptional } ? ["type", "attributes", "contentState"] : ["type", "contentState"])
        }
        // No contract: no body is valid (`oneOf` must have a variant, JSON Schema 2020-12 §10.2.1.3).
        let choice: (String, JSONValue) = variants.isEmpty ? ("not", [:]) : ("oneOf", .array(variants))
        return [
            "description": """
            one variant per contract type (its name in `type`). The push it makes (content state and alert, in the envelope) \
            must fit APNs's 4096 bytes, which no schema keyword can bound: a larger one is answered 422 with field `body`
            """,
            choice.0: choice.1,
        ]
    }

    static func ref(_ name: String) -> JSONValue { Schema.ref(name) }

    /// `schema`, or null (a left-out optional field), unless `required`.
    static func nullable(_ schema: JSONValue, unless required: Bool = false) -> JSONValue {
        required ? schema : ["anyOf": [schema, ["type": "null"]]]
    }

    /// The object of `fields`; those in `filledIn` the engine sets when they are left out.
    static func object(_ fields: [ContractField], date: JSONValue, filledIn: Set<String> = []) -> JSONValue {
        var properties: [String: JSONValue] = [:]
        for field in fields {
            let schema = type(field.type, date: date)
            properties[field.key] = field.isOptional ? nullable(schema) : schema
        }
        return [
            "type": "object", "properties": .object(properties),
            "required": .array(fields.filter { !$0.isOptional && !filledIn.contains($0.key) }.map { .string($0.key) }),
        ]
    }

    static func type(_ type: ContractField.FieldType, date: JSONValue) -> JSONValue {
        switch type {
        case .string: ["type": "string"]
        case .int: ["type": "integer", "minimum": .int(Int.min), "maximum": .int(Int.max)]
        case .double: ["type": "number"]
        case .bool: ["type": "boolean"]
        case .date: date
        case .enumeration(_, let cases): ["type": "string", "enum": .array(cases.map(JSONValue.string))]
        case .array(let element): ["type": "array", "items": Self.type(element, date: date)]
        case .object(_, let fields): object(fields, date: date)
        }
    }
}
