import Foundation

extension ContractFile {
    /// The contract file of an app's own types: what the exporter an app runs writes
    /// (`docs/contracts.md`, "Contract files"). The schema is derived from their `Decodable`
    /// conformance (``ContractSchema/derived(attributes:contentState:)``); the example is encoded
    /// with a default `JSONEncoder`, the strategies every contract uses (`docs/contracts.md`, the
    /// rules at the top).
    ///
    /// Both types are `Codable` because ActivityKit requires it of `ActivityAttributes` and its
    /// `ContentState`. `since` and `summary` cannot be read from a type: every key has 1 and none;
    /// set them on ``schema`` before writing when the file should carry them.
    ///
    /// Throws ``SchemaDerivationError`` when the types cannot be read, ``ContractFileError`` when
    /// the result breaks a rule of ``validate()`` (a type name that is no identifier, a version
    /// below 1, an example whose encoding does not match the decoding, a card or lifecycle naming
    /// no key), and the encoder's error when the example does not encode.
    public static func derived<Attributes: Codable, ContentState: Codable>(
        attributes: Attributes.Type, contentState: ContentState.Type, typeName: String? = nil, version: Int = 1,
        example: (attributes: Attributes, contentState: ContentState)? = nil, lifecycle: ContractLifecycle? = nil, card: CardTemplate? = nil
    ) throws -> ContractFile {
        let schema = try ContractSchema.derived(attributes: Attributes.self, contentState: ContentState.self)
        var exampleAttributes: JSONValue?
        var exampleContentState: JSONValue?
        if let example {
            let encoder = JSONEncoder()
            exampleAttributes = try JSONValue(json: encoder.encode(example.attributes))
            exampleContentState = try JSONValue(json: encoder.encode(example.contentState))
        }
        let file = ContractFile(
            typeName: typeName ?? String(describing: Attributes.self), version: version, schema: schema, exampleAttributes: exampleAttributes,
            exampleContentState: exampleContentState, lifecycle: lifecycle, card: card)
        try file.validate()
        return file
    }
}
