import Foundation
import LivelineAPI
import LivelineModel

/// The JSON schemas of the contracts' attributes and content states, made from the same
/// ``ContractSchema`` declarations the payload check validates with: `PUT /v1/contexts/{key}`
/// is documented as one variant per contract type.
enum ContractDocumentation {
    /// How far a `Date` may be from now before the check calls it implausible (``DateRules``:
    /// ten years); the document, made once at start, keeps a day inside it on either side.
    static let dateWindow: TimeInterval = 10 * 365.25 * 86_400
    static let dateMargin: TimeInterval = 86_400

    /// Whole numbers JSON carries exactly (the check takes a whole double below 9e15 as an Int).
    static let safeInteger = 9_007_199_254_740_991

    /// The body of a put: one variant per contract, with its own attributes and content state.
    static func putContext(registry: ContractRegistry, now: Date) -> JSONValue {
        let low = (now.timeIntervalSinceReferenceDate - dateWindow + dateMargin).rounded(.up)
        let high = (now.timeIntervalSinceReferenceDate + dateWindow - dateMargin).rounded(.down)
        let date: JSONValue = [
            "type": "number", "minimum": .double(low), "maximum": .double(high),
            "description": "seconds since 2001-01-01 00:00:00 UTC (Swift's Date), within ten years of now",
        ]
        let variants: [JSONValue] = registry.contracts.map { contract in
            Schema.object(
                [
                    "type": ["type": "string", "const": .string(contract.typeName)],
                    "attributes": object(contract.schema.attributes, date: date),
                    "contentState": object(contract.schema.contentState, date: date),
                    "alert": ref("Alert"),
                    "priority": ["type": "integer", "enum": [5, 10]],
                    "relevanceScore": ["type": "number", "minimum": 0],
                ], required: contract.schema.attributes.contains { !$0.isOptional } ? ["type", "attributes", "contentState"] : ["type", "contentState"])
        }
        return ["description": "one variant per contract type (its name in `type`)", "oneOf": .array(variants)]
    }

    static func ref(_ name: String) -> JSONValue { Schema.ref(name) }

    static func object(_ fields: [ContractField], date: JSONValue) -> JSONValue {
        var properties: [String: JSONValue] = [:]
        for field in fields {
            let schema = type(field.type, date: date)
            properties[field.key] = field.isOptional ? ["anyOf": [schema, ["type": "null"]]] : schema
        }
        return [
            "type": "object", "properties": .object(properties),
            "required": .array(fields.filter { !$0.isOptional }.map { .string($0.key) }),
        ]
    }

    static func type(_ type: ContractField.FieldType, date: JSONValue) -> JSONValue {
        switch type {
        case .string: ["type": "string"]
        case .int: ["type": "integer", "minimum": .int(-safeInteger), "maximum": .int(safeInteger)]
        case .double: ["type": "number"]
        case .bool: ["type": "boolean"]
        case .date: date
        case .enumeration(_, let cases): ["type": "string", "enum": .array(cases.map(JSONValue.string))]
        case .array(let element): ["type": "array", "items": Self.type(element, date: date)]
        case .object(_, let fields): object(fields, date: date)
        }
    }
}
