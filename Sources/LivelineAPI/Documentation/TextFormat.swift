import LivelineModel

/// A kind of text that is exactly a regular expression: the document prints the `pattern`, and
/// the server's check is a match of that very pattern (compiled once), so the server can neither
/// refuse a value the document calls valid nor take one it calls invalid — for any client, also
/// one that knows no `format` (OpenAPI 3.1 makes every `format` an annotation unless a validator
/// chooses to assert it; JSON Schema Validation 2020-12 §7.2). `docs/reliability.md`, "The API
/// contract (OpenAPI and schemathesis)".
///
/// The pattern is anchored (`^…$`), uses only what ECMA-262, Python's `re`, Rust's `regex` and
/// Swift's `Regex` read alike (literals, classes, groups, alternation, counted repeats, `\uXXXX`),
/// and is matched by Unicode scalars, as JSON Schema's `pattern` is.
public struct TextFormat: Sendable {
    /// The regular expression of exactly the valid values.
    public let pattern: String
    /// A standard `format` of JSON Schema Validation 2020-12 §7.3 (`date`, say) every match of
    /// the pattern satisfies, printed beside it for the tools that know it; an annotation, never a
    /// check of its own.
    public let format: String?
    /// What a valid value is, in words.
    public let about: String
    private let compiled: CompiledPattern

    /// `pattern` must compile and be anchored at both ends (a mistake here is a programming
    /// error: the formats are constants, and every one is matched by the tests).
    public init(pattern: String, format: String? = nil, about: String) {
        precondition(pattern.hasPrefix("^") && pattern.hasSuffix("$"), "a format's pattern is anchored: \(pattern)")
        compiled = CompiledPattern(pattern)
        self.pattern = pattern
        self.format = format
        self.about = about
    }

    /// Whether `text` is valid: it matches the pattern, all of it.
    public func isValid(_ text: String) -> Bool { compiled.matches(text) }
}
