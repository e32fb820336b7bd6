import Foundation

/// A context's lifecycle state.
public enum ContextLifecycle: String, JSONEnum, Sendable, Hashable {
    case active
    case ended
}

/// Answer of `GET /v1/contexts/{key}?since_rev=N` (`docs/engine.md`, "Pull-reconcile"): when `N` is
/// the current revision, `unchanged` is true and only the key fields are there; else the whole
/// truth with `unchanged` false.
public struct ContextSnapshotResponse: Codable, Sendable, Hashable {
    public var key: String
    public var type: String
    public var state: ContextLifecycle
    public var rev: Int
    public var unchanged: Bool
    public var attributes: JSONValue?
    public var contentState: JSONValue?
    public var startedAt: Date?
    /// The hard deadline (start + 8 hours): the phone ends the activity then.
    public var deadlineAt: Date?
    public var endedAt: Date?
    /// When an ended card leaves the lock screen: the type's dismissal time after `endedAt` (the
    /// end push carries the same time after it was sent). An app that learns of the end from a
    /// pull before the end push arrives ends the activity with this date (ActivityKit's
    /// `dismissalPolicy: .after(_:)`): a push that arrives after the end is ignored, so without
    /// it the card would stay up to the system's 4 hours.
    public var dismissalAt: Date?

    public init(
        key: String, type: String, state: ContextLifecycle, rev: Int, unchanged: Bool, attributes: JSONValue? = nil,
        contentState: JSONValue? = nil, startedAt: Date? = nil, deadlineAt: Date? = nil, endedAt: Date? = nil, dismissalAt: Date? = nil
    ) {
        self.key = key
        self.type = type
        self.state = state
        self.rev = rev
        self.unchanged = unchanged
        self.attributes = attributes
        self.contentState = contentState
        self.startedAt = startedAt
        self.deadlineAt = deadlineAt
        self.endedAt = endedAt
        self.dismissalAt = dismissalAt
    }
}
