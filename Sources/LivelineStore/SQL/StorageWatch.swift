import Synchronization

/// Whether a database's disk is full, as its writes find it: a write refused with
/// ``StoreError/Code/storageFull`` opens an episode, told once to every handler (``StorageEvent/full(message:)``);
/// the episode ends — told once too (``StorageEvent/freed(refusedWrites:duration:)``) — at the first
/// commit that comes ``settle`` after the last refused write. So an operator reads one line when
/// the disk fills and one when it has room again, also while it is nearly full and small writes
/// still fit between refused big ones (`docs/reliability.md`, "Disk full").
///
/// Backends own one and report every write's end to it; it never looks at free space itself:
/// the database's own error codes decide.
public final class StorageWatch: Sendable {
    private struct State {
        var handlers: [@Sendable (StorageEvent) -> Void] = []
        /// The first refused write of the open episode; nil while none is open.
        var since: ContinuousClock.Instant?
        var lastRefusal: ContinuousClock.Instant?
        var refused = 0
    }

    /// How long after the last refused write a commit must come to end an episode.
    public let settle: Duration
    private let state = Mutex(State())
    /// The last write was refused and none committed since (exact, for `/metrics`).
    private let full = Atomic<Bool>(false)
    /// An episode is open (``State/since`` != nil), readable without the lock: every commit asks.
    private let open = Atomic<Bool>(false)

    /// The ``settle`` of the backends' watches.
    public static let defaultSettle: Duration = .seconds(5)

    public init(settle: Duration = StorageWatch.defaultSettle) {
        self.settle = settle
    }

    /// Whether the last write was refused for lack of space (and none committed since).
    public var isFull: Bool { full.load(ordering: .acquiring) }

    /// Adds `handler`, called on the thread of the write that changed the state, outside any lock
    /// of the database (it may log; it must not write to the database: that could fail again).
    public func observe(_ handler: @escaping @Sendable (StorageEvent) -> Void) {
        state.withLock { $0.handlers.append(handler) }
    }

    /// A write failed with `error`: counted when it was for lack of space.
    public func writeFailed(_ error: any Error) {
        guard let error = error as? StoreError, error.code == .storageFull else { return }
        let now = ContinuousClock.now
        let handlers = state.withLock { state -> [@Sendable (StorageEvent) -> Void] in
            state.refused += 1
            state.lastRefusal = now
            full.store(true, ordering: .releasing)
            guard state.since == nil else { return [] }
            state.since = now
            open.store(true, ordering: .releasing)
            return state.handlers
        }
        for handler in handlers { handler(.full(message: error.message)) }
    }

    /// A write committed (one that changed rows: only those wrote to the disk).
    public func writeCommitted() {
        guard open.load(ordering: .acquiring) else { return }
        let now = ContinuousClock.now
        let (handlers, event) = state.withLock { state -> ([@Sendable (StorageEvent) -> Void], StorageEvent?) in
            full.store(false, ordering: .releasing)
            guard let since = state.since, let last = state.lastRefusal, now - last >= settle else { return ([], nil) }
            let event = StorageEvent.freed(refusedWrites: state.refused, duration: now - since)
            state = State(handlers: state.handlers)
            open.store(false, ordering: .releasing)
            return (state.handlers, event)
        }
        guard let event else { return }
        for handler in handlers { handler(event) }
    }
}
