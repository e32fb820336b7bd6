/// What an outbox row asks for (`docs/engine.md`, "The transactional outbox and the dispatcher").
public enum OutboxKind: String, Sendable, Hashable, CaseIterable {
    /// Send the context's current snapshot, rendered at send time from the current state.
    case sync
    /// Send a message rendered when it was enqueued (push-to-start, alert, web push, channel
    /// create/delete), once per idempotency key.
    case message
}
