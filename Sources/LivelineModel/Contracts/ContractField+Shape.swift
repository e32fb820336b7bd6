extension ContractField {
    /// This field with `since` and `summary` at their defaults, nested fields too: what a schema
    /// derived from Swift types can know (`docs/contracts.md`, "Deriving a contract's shape from its
    /// Swift types").
    public var shape: ContractField {
        ContractField(key, type.shape, optional: isOptional)
    }
}

extension ContractField.FieldType {
    /// This type with every nested field's `since` and `summary` at their defaults.
    public var shape: ContractField.FieldType {
        switch self {
        case .array(let element): .array(element.shape)
        case .object(let name, let fields): .object(name: name, fields: fields.map(\.shape))
        default: self
        }
    }
}
