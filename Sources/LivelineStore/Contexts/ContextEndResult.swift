/// What ``ContextRepository/end(key:now:note:in:)`` did: the context's revision after the call,
/// and whether it had ended before (then nothing changed).
public struct ContextEndResult: Sendable, Hashable {
    public var rev: Int
    public var alreadyEnded: Bool

    public init(rev: Int, alreadyEnded: Bool) {
        self.rev = rev
        self.alreadyEnded = alreadyEnded
    }
}
