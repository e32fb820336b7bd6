import Foundation

/// A device session: what a bearer token speaks for (`docs/engine.md`, "Auth").
///
/// Several users may share one session ("we mode"); ``user`` is the one it was created for, who
/// acts when a request names no `by`.
public struct SessionRecord: Sendable, Hashable {
    public var id: Int
    public var user: UserRecord
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(id: Int, user: UserRecord, createdAt: Date, lastSeenAt: Date) {
        self.id = id
        self.user = user
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}
