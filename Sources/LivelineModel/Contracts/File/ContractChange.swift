/// One difference between two versions of a contract, judged for an app built with the old one
/// (`docs/contracts.md`, "Compatibility of two contract files").
public struct ContractChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed; stable strings for scripts and logs.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case keyRemoved
        case keyAdded
        case typeChanged
        /// An optional key became required.
        case madeRequired
        /// A required key became optional.
        case madeOptional
        case caseAdded
        case caseRemoved
        case summaryChanged
    }

    /// Where, from the contract's top: `contentState.items[].name`.
    public var keyPath: String
    public var kind: Kind
    /// Whether an app built with the old contract, or a state stored under it, fails to decode.
    public var isBreaking: Bool
    /// What changed and what it does, in words, without the key path.
    public var message: String

    public init(_ kind: Kind, at keyPath: String, isBreaking: Bool, _ message: String) {
        self.keyPath = keyPath
        self.kind = kind
        self.isBreaking = isBreaking
        self.message = message
    }

    /// `contentState.eta: removed; …`.
    public var description: String { "\(keyPath): \(message)" }
}
