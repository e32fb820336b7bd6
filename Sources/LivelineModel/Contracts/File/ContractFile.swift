import Foundation

/// A Live Activity contract as a file: what an app exports from its own Swift types so that a
/// server checks its pushes without being rebuilt (`docs/contracts.md`, "Contract files").
///
/// It holds the type name, the version, the schema (keys, types, optionality, the version that
/// added each key), an example, and optionally the lifecycle and the card as text. ``parse(_:)``
/// reads and checks one, ``json`` writes one, ``derived(attributes:contentState:typeName:version:example:lifecycle:card:)``
/// makes one from the app's types.
public struct ContractFile: Sendable, Hashable {
    /// The `format` string of the files this model reads and writes.
    public static let format = "liveline-contract/1"
    /// The largest file accepted, in bytes (256 KiB); a larger one is refused before it is parsed.
    public static let maximumSize = 262_144
    /// The highest version a file may have (a server stores it in a 32-bit column).
    public static let maximumVersion = Int(Int32.max)

    /// The Swift type name, sent as `attributes-type`.
    public var typeName: String
    /// The contract's version, from 1; a key added later carries it as `since` and is optional.
    public var version: Int
    /// The keys of the attributes and the content state.
    public var schema: ContractSchema
    /// Example static attributes, as JSON.
    public var exampleAttributes: JSONValue?
    /// Example content state, as JSON.
    public var exampleContentState: JSONValue?
    /// Stale and dismissal times, budget and material keys; nil: the server's defaults, and every
    /// change is material.
    public var lifecycle: ContractLifecycle?
    /// The card as text; nil: the plain card of the state's keys and values.
    public var card: CardTemplate?

    /// A file of these parts. Nested types get names a file can hold: a Swift identifier, unique
    /// in the file (`Box<Int>` becomes `BoxInt`, a second `Item` of another shape `Item2`), so
    /// that `parse(file.json) == file`.
    public init(
        typeName: String, version: Int, schema: ContractSchema, exampleAttributes: JSONValue? = nil, exampleContentState: JSONValue? = nil,
        lifecycle: ContractLifecycle? = nil, card: CardTemplate? = nil
    ) {
        self.typeName = typeName
        self.version = version
        self.schema = ContractTypeNames(schema).renamed(schema)
        self.exampleAttributes = exampleAttributes
        self.exampleContentState = exampleContentState
        self.lifecycle = lifecycle
        self.card = card
    }

    /// The 16-hex-digit fingerprint of what decoding depends on (``ContractSchema/fingerprint(typeName:)``).
    public var fingerprint: String { schema.fingerprint(typeName: typeName) }

    /// Why the change from `old` to `new` content state is material, or nil (``ContractLifecycle/materialChange(from:to:)``;
    /// without a lifecycle every change is).
    public func materialChange(from old: JSONValue, to new: JSONValue) -> String? {
        (lifecycle ?? ContractLifecycle()).materialChange(from: old, to: new)
    }

    /// The card of these documents: the file's ``card`` (dates as times), else the plain card.
    public func renderedCard(attributes: JSONValue, contentState: JSONValue, badge: String) -> RenderedCard {
        guard let card else { return CardTemplate.plain(typeName: typeName, attributes: attributes, contentState: contentState, badge: badge) }
        return card.render(attributes: attributes, contentState: contentState, badge: badge, schema: schema)
    }
}
