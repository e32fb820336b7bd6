/// What a value must be, in words, carried as the underlying error of a `DecodingError` this
/// package throws, so that ``DecodingProblem`` says it instead of Foundation's text.
public struct DecodingExpectation: Error, Sendable, Hashable {
    /// A valid value, as a message completes "must be …": "one of alert, web-push".
    public var expected: String

    public init(_ expected: String) { self.expected = expected }
}
