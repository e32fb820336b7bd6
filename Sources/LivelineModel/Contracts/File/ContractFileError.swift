/// Why a contract file was refused: a machine code, where in the file (a path such as
/// `contentState[2].type` or `types.Item.fields[0].key`) and what was expected (`docs/contracts.md`,
/// "Contract files").
public struct ContractFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is; stable strings for scripts and logs.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The file, or the folder of files, could not be read (``ContractFile/read(folder:)``).
        case unreadable
        /// The file is over ``ContractFile/maximumSize``.
        case tooLarge
        /// The text is not JSON, or not a JSON object.
        case notJSON
        /// `format` is missing or names a format this model does not read.
        case unsupportedFormat
        /// A member the file must have is missing (or `null`).
        case missingMember
        /// A member has the wrong JSON type.
        case mistypedMember
        /// A member nobody reads: a typo, or a newer format.
        case unknownMember
        /// `type` or a name in `types` is no Swift identifier, or a key is empty.
        case invalidName
        /// `version` is below 1.
        case invalidVersion
        /// A key's type is neither a built-in type, `[T]`, nor a name from `types`.
        case unknownType
        /// A key listed twice in one object.
        case duplicateKey
        /// An enum without cases or with a case listed twice.
        case invalidEnum
        /// A key's type nests arrays and objects deeper than a file may.
        case tooDeep
        /// A type that contains itself: its keys are no finite tree.
        case recursiveType
        /// A type in `types` that no key uses.
        case unusedType
        /// `since` below 1 or after the file's version.
        case invalidSince
        /// A key added after version 1 that is not optional.
        case addedKeyNotOptional
        /// The example does not match the schema.
        case exampleMismatch
        /// A lifecycle number out of its range.
        case outOfRange
        /// `materialKeys` or a card placeholder names a key the contract lacks.
        case unknownKey
        /// A card text whose braces do not make placeholders.
        case invalidPlaceholder
        /// The `fingerprint` the file carries is not the one its schema gives.
        case fingerprintMismatch
    }

    public var code: Code
    /// Where in the file, e.g. `contentState[2].type`; empty for the file as a whole.
    public var field: String
    /// What is wrong and what was expected, in words.
    public var message: String

    public init(_ code: Code, at field: String, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// `contentState[2].type: 'Strin' is not a type: …`, or the message alone for the whole file.
    public var description: String { field.isEmpty ? message : "\(field): \(message)" }
}
