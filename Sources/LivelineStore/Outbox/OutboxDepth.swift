import Foundation

/// How much work the outbox holds, for `/metrics` (`docs/engine.md`, "Configuration and operation":
/// outbox depth and age, dead letters).
public struct OutboxDepth: Sendable, Hashable {
    /// Rows waiting to be claimed, including retries whose time has not come.
    public var due: Int
    /// Rows claimed by a dispatcher and not yet completed.
    public var leased: Int
    /// Dead letters.
    public var dead: Int
    /// How long the longest-waiting row whose time has come has been waiting (now − its
    /// `due_at`); `nil` when no row is ready.
    public var oldestDueAge: TimeInterval?

    public init(due: Int, leased: Int, dead: Int, oldestDueAge: TimeInterval?) {
        self.due = due
        self.leased = leased
        self.dead = dead
        self.oldestDueAge = oldestDueAge
    }
}
