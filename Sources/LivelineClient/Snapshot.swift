import Foundation

/// A context's truth as pulled: its revision, content state, and when it arrived.
public struct Snapshot<State: Sendable>: Sendable {
    public var contextKey: String
    public var rev: Int
    public var state: State
    /// The context has ended (the card shows its final state).
    public var ended: Bool
    /// When this device received it (the freshness of what it shows).
    public var receivedAt: Date
    /// When an ended card leaves the lock screen: end the activity with
    /// `dismissalPolicy: .after(dismissalDate)` (see `ContextSnapshotResponse.dismissalAt`).
    public var dismissalDate: Date?

    public init(contextKey: String, rev: Int, state: State, ended: Bool, receivedAt: Date, dismissalDate: Date? = nil) {
        self.contextKey = contextKey
        self.rev = rev
        self.state = state
        self.ended = ended
        self.receivedAt = receivedAt
        self.dismissalDate = dismissalDate
    }
}

extension Snapshot: Equatable where State: Equatable {}

/// The answer to a pull: nothing new since the revision held, or the new truth.
public enum PullResult<State: Sendable>: Sendable {
    case unchanged(rev: Int)
    case snapshot(Snapshot<State>)
}

extension Snapshot: Codable where State: Codable {}
