import Foundation

/// The newest snapshot of one context, behind the revision guard (`docs/sdk.md`): a snapshot
/// is kept only if its `rev` is newer than the one held, so a late answer, a reload from disk or
/// an optimistic local update never rolls the card back. An optimistic local change is shown at
/// once and replaced by the server's truth at the next pull.
public struct SnapshotHolder<State: Sendable>: Sendable {
    public private(set) var current: Snapshot<State>?
    /// The state shown is a local change the server has not confirmed yet.
    public private(set) var isOptimistic = false
    /// When a pull last succeeded (new or unchanged): what freshness is measured from.
    public private(set) var lastPulledAt: Date?

    public init(current: Snapshot<State>? = nil) {
        self.current = current
    }

    /// The revision to pull with: the one held, or none while a local change is pending (then
    /// the whole truth must come back, even at the same revision).
    public var sinceRev: Int? { isOptimistic ? nil : current?.rev }

    /// Keeps `snapshot` if it is newer than the one held — or at the same revision while an
    /// optimistic change is shown (the server's truth for that revision wins). Returns whether it
    /// was kept.
    @discardableResult
    public mutating func apply(_ snapshot: Snapshot<State>, pulledAt: Date? = nil) -> Bool {
        if let pulledAt { lastPulledAt = max(lastPulledAt ?? pulledAt, pulledAt) }
        if let current {
            guard snapshot.rev > current.rev || (snapshot.rev == current.rev && isOptimistic) else { return false }
        }
        current = snapshot
        isOptimistic = false
        return true
    }

    /// A pull answered "unchanged at `rev`" at `date`: what is held is still the truth.
    public mutating func confirm(rev: Int, at date: Date) {
        guard let current, current.rev == rev, !isOptimistic else { return }
        lastPulledAt = max(lastPulledAt ?? date, date)
    }

    /// Shows a local change at once (e.g. an item checked off before the server answered); the
    /// next pull brings the truth, whatever its revision.
    public mutating func applyOptimistic(_ state: State, at date: Date) {
        guard var snapshot = current else { return }
        snapshot.state = state
        snapshot.receivedAt = date
        current = snapshot
        isOptimistic = true
    }
}
