/// The lifecycle state of a context (`docs/engine.md`, "Contexts, revisions, snapshots").
public enum ContextState: String, Sendable, Hashable, CaseIterable {
    case active
    case ended
}
