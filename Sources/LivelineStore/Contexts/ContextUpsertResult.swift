/// What ``ContextRepository/upsert(key:activityType:attributes:contentState:alert:priorityHint:relevanceScore:now:)``
/// did: the context's new revision, and whether the call created it.
public struct ContextUpsertResult: Sendable, Hashable {
    public var rev: Int
    public var created: Bool

    public init(rev: Int, created: Bool) {
        self.rev = rev
        self.created = created
    }
}
