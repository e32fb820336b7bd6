/// The database's disk filled up, or has room again, as its writes found it
/// (``Database/onStorageEvent(_:)``; `docs/reliability.md`, "Disk full").
public enum StorageEvent: Sendable, Hashable {
    /// A write was refused for lack of space, the first of an episode: it was rolled back.
    /// `message` is the database's own explanation.
    case full(message: String)
    /// The episode is over: a write committed when none had been refused for a while
    /// (``StorageWatch/settle``). `refusedWrites` were refused for lack of space over `duration`
    /// (from the first refusal to this commit).
    case freed(refusedWrites: Int, duration: Duration)
}
