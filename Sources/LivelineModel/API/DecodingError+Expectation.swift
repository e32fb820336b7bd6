extension DecodingError {
    /// The value at `codingPath` is of the right JSON type but not one `expected` describes (an
    /// unknown case of an enum); ``DecodingProblem`` says "must be \(expected)".
    public static func invalidValue(_ expected: String, at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(Context(codingPath: codingPath, debugDescription: "must be \(expected)", underlyingError: DecodingExpectation(expected)))
    }

    /// This error, when a type mismatch or a null, as one of `type`, which must be `expected`: a
    /// type that knows better than the JSON type it reads says so ("one of …" rather than "a
    /// string"). Any other error is returned as it is.
    public func expecting(_ expected: String, type: Any.Type) -> DecodingError {
        let marked = { (context: Context) in
            Context(codingPath: context.codingPath, debugDescription: "must be \(expected)", underlyingError: DecodingExpectation(expected))
        }
        switch self {
        case .typeMismatch(_, let context): return .typeMismatch(type, marked(context))
        case .valueNotFound(_, let context): return .valueNotFound(type, marked(context))
        default: return self
        }
    }
}
