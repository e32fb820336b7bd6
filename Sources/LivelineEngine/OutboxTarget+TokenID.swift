import LivelineStore

extension OutboxTarget {
    /// The `push_tokens.id` of a token target.
    var tokenID: Int? { if case .token(let id) = self { id } else { nil } }
}
