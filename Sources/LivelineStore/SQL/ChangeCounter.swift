import Synchronization

/// A number that goes up after every write to some data, so readers can keep a derived value
/// (a cached response) and know cheaply when it may be stale: read `value` *before* reading the
/// data; if it is unchanged later, nothing was written since.
///
/// It counts the writes of this process. A backend shared by several server processes
/// (PostgreSQL) must also bump it when another process announces a write (LISTEN/NOTIFY).
public final class ChangeCounter: Sendable {
    private let counter = Atomic<UInt64>(0)

    public init() {}

    public var value: UInt64 { counter.load(ordering: .acquiring) }

    public func bump() { counter.add(1, ordering: .releasing) }
}
