import Foundation

extension ContractSchema {
    /// The fingerprint of an app's own `ActivityAttributes` type and its content state, from their
    /// `Decodable` conformance (``derived(attributes:contentState:)``): what the SDK registers
    /// tokens with, so the build's shape cannot be forgotten. Nil when the types cannot be derived.
    public static func fingerprint<Attributes: Decodable, ContentState: Decodable>(
        attributes: Attributes.Type, contentState: ContentState.Type, typeName: String? = nil
    ) -> String? {
        guard let schema = try? derived(attributes: attributes, contentState: contentState) else { return nil }
        return schema.fingerprint(typeName: typeName ?? String(describing: attributes))
    }
}
