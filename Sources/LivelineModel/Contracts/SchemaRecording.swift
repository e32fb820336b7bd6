/// What one type's `init(from:)` asked a ``SchemaRecordingDecoder`` for: keys in the order it
/// decoded them, an array's element, or a single value (`docs/contracts.md`, "Deriving a contract's
/// shape from its Swift types").
///
/// A class: the decoder and its containers, which are values, all write to the one recording.
final class SchemaRecording {
    /// The name of the type being decoded, for its `.object` field type and for errors.
    let typeName: String
    /// The keys, in decoding order; nil until the type asks for a keyed container.
    private(set) var fields: [ContractField]?
    /// Keys probed with `contains` or `decodeNil`: the type accepts them absent or `null`.
    private var probedKeys: Set<String> = []
    /// The last key the type decoded, for the error when its `init(from:)` throws.
    private(set) var lastKey: (any CodingKey)?
    private var readUnkeyed = false
    private var element: ContractField.FieldType?
    private var elementProblem: String?
    private(set) var readSingleValue = false
    private var singleValue: ContractField.FieldType?
    private var singleValueIsOptional = false
    /// The type read `allKeys`: it takes whichever keys the JSON has.
    var readsAllKeys = false

    init(typeName: String) {
        self.typeName = typeName
    }

    func beginKeyed() {
        if fields == nil { fields = [] }
    }

    func probe(_ key: any CodingKey) {
        probedKeys.insert(key.stringValue)
    }

    /// Notes `key` as decoded with `type`; a key decoded twice keeps its first type.
    func record(_ key: any CodingKey, _ type: ContractField.FieldType, optional: Bool) {
        lastKey = key
        let isOptional = optional || probedKeys.contains(key.stringValue)
        var recorded = fields ?? []
        if let index = recorded.firstIndex(where: { $0.key == key.stringValue }) {
            recorded[index].isOptional = recorded[index].isOptional || isOptional
        } else {
            recorded.append(ContractField(key.stringValue, type, optional: isOptional))
        }
        fields = recorded
    }

    func beginUnkeyed() {
        readUnkeyed = true
    }

    /// Notes that the array's elements may be `null`, which no field type describes.
    func probeElementNil() {
        elementProblem = elementProblem ?? "\(typeName) holds optional elements; expected an array of non-optional values"
    }

    /// Notes one array element; optional elements or elements of different types are refused later.
    func recordElement(_ type: ContractField.FieldType, optional: Bool) {
        if optional { probeElementNil() }
        if let element, element != type {
            elementProblem = elementProblem ?? "\(typeName) holds elements of different types (\(element), \(type)); expected one element type"
        }
        element = element ?? type
    }

    func beginSingleValue() {
        readSingleValue = true
    }

    func probeSingleNil() {
        singleValueIsOptional = true
    }

    func recordSingleValue(_ type: ContractField.FieldType, optional: Bool) {
        singleValue = singleValue ?? type
        singleValueIsOptional = singleValueIsOptional || optional
    }

    /// The field type the recorded requests describe, or the error naming what no field type can.
    func shape(in derivation: SchemaDerivation, at path: [any CodingKey]) throws -> (type: ContractField.FieldType, isOptional: Bool) {
        if readsAllKeys {
            throw derivation.error(
                .unsupportedValue, named: typeName, at: path, "\(typeName) reads whichever keys the JSON has; expected a type that decodes fixed keys"
            )
        }
        if let fields {
            return (.object(name: typeName, fields: fields), false)
        }
        if readUnkeyed {
            if let elementProblem {
                throw derivation.error(.unsupportedValue, named: typeName, at: path, elementProblem)
            }
            guard let element else {
                throw derivation.error(.unsupportedValue, named: typeName, at: path, "\(typeName) decodes no array element; expected an element type")
            }
            return (.array(element), false)
        }
        if let singleValue {
            return (singleValue, singleValueIsOptional)
        }
        return (.object(name: typeName, fields: []), false)
    }
}
