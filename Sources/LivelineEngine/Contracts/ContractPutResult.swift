import LivelineModel

/// What storing a contract version did.
public struct ContractPutResult: Sendable {
    public var typeName: String
    public var version: Int
    public var fingerprint: String
    /// False when that version was stored already with this shape.
    public var created: Bool
    /// The compatibility report against the versions installed (breaking changes only when forced).
    public var changes: [ContractChange]
}
