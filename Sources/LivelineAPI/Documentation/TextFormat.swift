import LivelineModel

/// A kind of text that is exactly a regular expression: the document prints the `pattern`, and
/// the server's check is a match of that very pattern (compiled once) or a check written out
/// that the tests hold to it, so the server can neither refuse a value the document calls valid
/// nor take one it calls invalid — for any client, also
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
    /// The same test written out, for a rule on a hot path (a shopping pull checks its week);
    /// nil: the pattern is matched.
    private let equivalent: (@Sendable (String) -> Bool)?

    /// `pattern` must compile and be anchored at both ends (a mistake here is a programming
    /// error: the formats are constants, and every one is matched by the tests). `equivalent`,
    /// when given, must take exactly what the pattern matches (its tests hold it to
    /// ``matchesPattern(_:)``): for a long pattern on a hot path (`docs/performance.md`, "Reads").
    public init(pattern: String, format: String? = nil, about: String, equivalent: (@Sendable (String) -> Bool)? = nil) {
        precondition(pattern.hasPrefix("^") && pattern.hasSuffix("$"), "a format's pattern is anchored: \(pattern)")
        compiled = CompiledPattern(pattern)
        self.pattern = pattern
        self.format = format
        self.about = about
        self.equivalent = equivalent
    }

    /// Whether `text` is valid: it matches the pattern, all of it (by the equivalent check, if given).
    public func isValid(_ text: String) -> Bool { equivalent?(text) ?? compiled.matches(text) }

    /// Whether `text` matches the pattern itself, also where an equivalent check stands in for it.
    public func matchesPattern(_ text: String) -> Bool { compiled.matches(text) }
}
