/// What a `/v1` put did (`PUT /v1/contexts/{key}`): the context's new revision, and whether the
/// put created it.
public struct ContextUpsertResult: Sendable, Hashable {
    public var rev: Int
    public var created: Bool

    public init(rev: Int, created: Bool) {
        self.rev = rev
        self.created = created
    }
}
