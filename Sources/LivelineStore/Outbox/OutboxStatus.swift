/// Where an outbox row is in its life: `due` → `leased` (claimed by a dispatcher) → `done`, back
/// to `due` for a retry, or `dead` when it can never be sent (`docs/engine.md`, "The transactional
/// outbox and the dispatcher").
public enum OutboxStatus: String, Sendable, Hashable, CaseIterable {
    case due
    case leased
    case done
    case dead
}
