/// A kind of text: either exactly a regular expression (`name` nil: the document prints the
/// `pattern`), or one no JSON Schema keyword expresses exactly (the ISO date of a Monday, say):
/// the document prints its `name` as a custom `format` (and its `about` as the description).
/// `isValid` is the server's check. Generators of test data that do not know the
/// format must be told how to make values (`Tests/LivelineServerTests/OpenAPI/schemathesis_hooks.py`
/// registers each for schemathesis).
public struct TextFormat: Sendable {
    /// The custom `format` printed with the pattern, for what the pattern cannot say; nil when
    /// the pattern is exact.
    public let name: String?
    /// A regular expression every valid value matches (when `name` is nil: exactly the valid ones).
    public let pattern: String
    /// What a valid value is, in words.
    public let about: String
    public let isValid: @Sendable (String) -> Bool

    public init(name: String?, pattern: String, about: String, isValid: @escaping @Sendable (String) -> Bool) {
        self.name = name
        self.pattern = pattern
        self.about = about
        self.isValid = isValid
    }
}
