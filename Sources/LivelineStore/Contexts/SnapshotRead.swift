/// The answer to a pull-reconcile read with `?since_rev=N` (`docs/engine.md`, "Pull-reconcile").
public enum SnapshotRead: Sendable, Hashable {
    /// `N` is the current revision: answer `{…key fields…, "rev": N, "unchanged": true}` with no
    /// body and no expensive work.
    case unchanged(key: String, activityType: String, state: ContextState, rev: Int)
    /// The context changed since `N` (or no `N` was given): the full truth, read in the same read
    /// transaction as the revision.
    case changed(ContextRecord)

    /// The revision the answer is for.
    public var rev: Int {
        switch self {
        case .unchanged(_, _, _, let rev): rev
        case .changed(let record): record.rev
        }
    }
}
