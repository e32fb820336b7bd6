import Foundation

extension ContractSchema {
    /// A 16-hex-digit fingerprint of what decoding this schema's JSON depends on: the 64-bit
    /// FNV-1a hash of ``fingerprintText(typeName:)`` (`docs/contracts.md`, "Fingerprint").
    ///
    /// Keys' order, summaries, `since` and the names of nested types do not change it; a key, a
    /// JSON type, an optionality or an enum case does. It tells which build's shape a file or an
    /// app has; it is no security boundary, so a fast hash that Foundation alone computes on iOS and
    /// Linux is enough.
    public func fingerprint(typeName: String) -> String {
        FNV1a.hex(fingerprintText(typeName: typeName).utf8)
    }

    /// The canonical text the fingerprint hashes, three lines after a header:
    /// `type "Name"`, `attributes {…}`, `contentState {…}`, where an object is `{"key":Type,…}`
    /// sorted by key (UTF-8 byte order), an optional key's type ends in `?`, an array is `[T]`,
    /// an enum `enum("a","b")` with its cases sorted, and a string is quoted with `\` before `"`
    /// and `\` (`docs/contracts.md`, "Fingerprint").
    public func fingerprintText(typeName: String) -> String {
        [
            "liveline-contract-fingerprint/1", "type " + Self.quoted(typeName),
            "attributes " + Self.canonical(attributes), "contentState " + Self.canonical(contentState),
        ].joined(separator: "\n")
    }

    /// `{"key":Type?,…}`, sorted by key.
    static func canonical(_ fields: [ContractField]) -> String {
        let sorted = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let members = sorted.map { quoted($0.key) + ":" + canonical($0.type) + ($0.isOptional ? "?" : "") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A type without its Swift names: `String`, `[…]`, `enum("a","b")`, `{…}`.
    static func canonical(_ type: ContractField.FieldType) -> String {
        switch type {
        case .string, .int, .double, .bool, .date: type.description
        case .array(let element): "[" + canonical(element) + "]"
        case .enumeration(_, let cases):
            "enum(" + cases.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map(quoted).joined(separator: ",") + ")"
        case .object(_, let fields): canonical(fields)
        }
    }

    /// `text` in double quotes, with `\` before each `"` and `\`.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
