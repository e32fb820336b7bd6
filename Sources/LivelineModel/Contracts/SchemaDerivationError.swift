/// Why a contract's schema could not be derived from its Swift types: a machine code, the type at
/// fault, the key path and what was expected (`docs/contracts.md`, "Deriving a contract's shape
/// from its Swift types").
public struct SchemaDerivationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is; stable strings for scripts and logs.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A type contains itself, directly or through other types: its keys are no finite tree.
        case recursiveType
        /// A value no `ContractField.FieldType` describes: a dictionary, an enum without String raw
        /// values, an array of optionals or of mixed types, a container decoded by hand.
        case unsupportedValue
        /// An enum with raw values but without `CaseIterable`: its cases cannot be listed.
        case enumNotCaseIterable
        /// A type's own `init(from:)` threw on the placeholder values the derivation hands it.
        case initThrew
        /// The attributes or the content state do not decode from a JSON object.
        case notAnObject
    }

    public var code: Code
    /// The Swift type at fault, as `String(describing:)` prints it, e.g. `Mood`.
    public var typeName: String
    /// Where in the derived type the problem is, rooted at its name, e.g. `Node.children[0]`.
    public var keyPath: String
    /// What went wrong and what was expected, in words.
    public var message: String

    public init(_ code: Code, typeName: String, keyPath: String, _ message: String) {
        self.code = code
        self.typeName = typeName
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String { "\(keyPath): \(message)" }
}
