import Foundation
import LivelineModel
import LivelineStore

/// Builds a context's current content state at send time, from one read (the transaction the
/// renderer also takes the push timestamp in). A feature registers one per activity type; the
/// content state must decode into the type's contract.
public protocol SnapshotSource: Sendable {
    func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue
}

/// The snapshot of a context whose state is stored as given (the `/v1` API).
public struct StoredSnapshotSource: SnapshotSource {
    public init() {}

    public func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
        guard let text = context.contentState else {
            throw EngineError("context \(context.key) has no stored content state and no snapshot source for \(context.activityType)")
        }
        return try JSONValue(json: Data(text.utf8))
    }
}

/// Work a feature needs done periodically (e.g. shopping sessions whose heartbeat lapsed), run on
/// the dispatcher's thread with the lifecycle sweep. It must be quick and must not throw: a
/// failure is the task's to report and is tried again on the next sweep.
public protocol PeriodicTask: Sendable {
    func run(now: Date)
}
