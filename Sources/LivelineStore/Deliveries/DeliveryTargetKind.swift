/// What a delivery attempt went to: a push token or a broadcast channel (`docs/engine.md`, "Fan-out
/// for a sync").
public enum DeliveryTargetKind: String, Sendable, Hashable, CaseIterable {
    case token
    case channel
}
