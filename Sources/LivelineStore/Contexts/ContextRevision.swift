import Foundation

/// One revision of a context, for its timeline (`docs/engine.md`, "Contexts, revisions, snapshots").
public struct ContextRevision: Sendable, Hashable {
    public var contextKey: String
    public var rev: Int
    public var changedAt: Date
    /// What changed, in a few words (`created`, `ended`, `item added`), when the caller said.
    public var note: String?

    public init(contextKey: String, rev: Int, changedAt: Date, note: String?) {
        self.contextKey = contextKey
        self.rev = rev
        self.changedAt = changedAt
        self.note = note
    }

    static let columns = "context_key, rev, changed_at, note"

    init(row: Row) throws {
        self.init(
            contextKey: try row.string("context_key"), rev: try row.int("rev"), changedAt: try row.date("changed_at"),
            note: try row.optionalString("note")
        )
    }
}
