extension ContractSchema {
    /// The schema of an app's own types, read through their `Decodable` conformance: keys in decoding
    /// order, types, optionality, nested structs, arrays, String enums with their raw values and
    /// `Date` (`docs/contracts.md`, "Deriving a contract's shape from its Swift types").
    ///
    /// Takes the two types rather than a ``LiveActivityContract``: an app's `ActivityAttributes` type
    /// and its `ContentState` are not contracts of ours (``init(deriving:)`` is the shortcut for one).
    /// `since` and `summary` cannot be read from a type: every field has the defaults, so compare
    /// a hand-written schema by its ``shape``.
    public static func derived<Attributes: Decodable, ContentState: Decodable>(
        attributes: Attributes.Type, contentState: ContentState.Type
    ) throws(SchemaDerivationError) -> ContractSchema {
        ContractSchema(attributes: try fields(of: Attributes.self), contentState: try fields(of: ContentState.self))
    }

    /// The schema derived from a contract's attributes type and its `ContentState`
    /// (see ``derived(attributes:contentState:)``).
    public init<Contract: LiveActivityContract>(deriving contract: Contract.Type) throws(SchemaDerivationError) {
        self = try Self.derived(attributes: Contract.self, contentState: Contract.ContentState.self)
    }

    /// This schema with every `since` and `summary` at their defaults: the part a derived schema
    /// has, so the two compare with `==`.
    public var shape: ContractSchema {
        ContractSchema(attributes: attributes.map(\.shape), contentState: contentState.map(\.shape))
    }

    /// The fields of `T`, which must decode from a JSON object.
    static func fields<T: Decodable>(of type: T.Type) throws(SchemaDerivationError) -> [ContractField] {
        let derivation = SchemaDerivation(root: SchemaDerivation.name(T.self))
        let derived: SchemaDerivation.Derived<T>
        do {
            derived = try derivation.derive(T.self, at: [])
        } catch let error as SchemaDerivationError {
            throw error
        } catch {
            throw derivation.error(.initThrew, T.self, at: [], "\(derivation.root) could not be derived; expected a Decodable struct")
        }
        if let swallowed = derivation.firstError {
            throw swallowed
        }
        guard case .object(_, let fields) = derived.type, !derived.isOptional else {
            let what = derived.isOptional ? "an optional value" : derived.type.jsonDescription
            throw derivation.error(
                .notAnObject, T.self, at: [], "\(derivation.root) decodes from \(what); expected a struct decoded from a JSON object")
        }
        return fields
    }
}
