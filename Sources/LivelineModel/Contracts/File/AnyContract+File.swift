import Foundation

extension AnyContract {
    /// The contract of a contract file: its schema is the app's decoder, its lifecycle says what
    /// is material, and its card template (else a plain card of the state's keys) is what the
    /// simulated iPhones and the dashboard show.
    public init(file: ContractFile, origin: Origin) {
        self.init(
            typeName: file.typeName, version: file.version, schema: file.schema, exampleAttributes: file.exampleAttributes ?? .object([:]),
            exampleContentState: file.exampleContentState ?? .object([:]), origin: origin,
            materialChange: { old, new in file.materialChange(from: old, to: new) },
            card: { attributes, contentState, badge in file.renderedCard(attributes: attributes, contentState: contentState, badge: badge) })
        self.file = file
        fileFingerprint = file.fingerprint
    }

    /// What the phone's decoder depends on, as ``ContractSchema/fingerprint(typeName:)`` gives it:
    /// the SDK registers tokens with the fingerprint of the type the app was built with.
    public var fingerprint: String { fileFingerprint ?? schema.fingerprint(typeName: typeName) }
}

extension ContractFile {
    /// The file of any contract: a loaded one's own, a compiled-in one's schema and examples
    /// (what `GET /v1/contracts/{type}` shows of a built-in type).
    public init(_ contract: AnyContract) {
        if let file = contract.file {
            self = file
        } else {
            self.init(
                typeName: contract.typeName, version: contract.version, schema: contract.schema, exampleAttributes: contract.exampleAttributes,
                exampleContentState: contract.exampleContentState)
        }
    }
}
