import Foundation
import LivelineModel
import Testing

/// A contract's rules run on whatever JSON its type decodes, so the ends of every number's range
/// must neither trap nor go unnoticed (a trip's delay of `Int.max` once crashed the dispatcher).
@Suite struct ContractExtremesTests {
    @Test(arguments: ContractRegistry.builtIn.contracts.map(\.typeName))
    func everyNumberAtEitherEndOfItsRangeIsDrawnAndCompared(typeName: String) throws {
        let contract = try #require(ContractRegistry.builtIn.contract(named: typeName))
        let attributes = contract.exampleAttributes.compactJSON
        let example = contract.exampleContentState
        let low = Self.extreme(example, fields: contract.schema.contentState, high: false)
        let high = Self.extreme(example, fields: contract.schema.contentState, high: true)
        #expect(low != example && high != example, "the example has numbers to push to their ends")
        for state in [low, high] {
            #expect(contract.card(attributes: attributes, contentState: state.compactJSON, badge: "") != nil, "\(state.compactText)")
        }
        for (old, new) in [(low, high), (high, low), (example, high), (low, example)] {
            #expect(contract.materialChange(fromJSON: old.compactJSON, toJSON: new.compactJSON) != nil, "\(old.compactText) → \(new.compactText)")
        }
    }

    /// `value` with every number the fields name at the low or high end of what its type decodes.
    static func extreme(_ value: JSONValue, fields: [ContractField], high: Bool) -> JSONValue {
        guard var object = value.objectValue else { return value }
        for field in fields {
            if let current = object[field.key] { object[field.key] = extreme(current, type: field.type, high: high) }
        }
        return .object(object)
    }

    static func extreme(_ value: JSONValue, type: ContractField.FieldType, high: Bool) -> JSONValue {
        switch (type, value) {
        case (.int, _): .int(high ? Int.max : Int.min)
        case (.double, _), (.date, _): .double(high ? Double.greatestFiniteMagnitude : -Double.greatestFiniteMagnitude)
        case (.array(let element), .array(let values)): .array(values.map { extreme($0, type: element, high: high) })
        case (.object(_, let fields), _): extreme(value, fields: fields, high: high)
        default: value
        }
    }
}
