import LivelineStore

extension OutboxTarget {
    /// The `push_tokens.id` of a token target.
    var tokenID: PushTokenID? { if case .token(let id) = self { id } else { nil } }
}
