import Dispatch
import Synchronization

/// A ``ChangeCounter`` that can also be awaited: a sleeping task wakes up when it is bumped.
///
/// The outbox uses it to wake dispatchers when rows were enqueued (``OutboxRepository/enqueued``),
/// so a change goes out without waiting for a poll interval. Bump it *after* the enqueuing
/// transaction committed (a dispatcher woken earlier would not see the row yet); a bump without new
/// rows only costs an empty claim. It counts this process's writes: with PostgreSQL, `LISTEN/NOTIFY`
/// must bump it for other processes' writes (`docs/engine.md`, "Storage"), and dispatchers should still
/// poll now and then (a timeout) as a safety net.
public final class ChangeSignal: Sendable {
    private struct State {
        var value: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var blockedThreads: [UInt64: DispatchSemaphore] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The number of bumps so far. Read it *before* looking for work, then wait past it.
    public var value: UInt64 { state.withLock { $0.value } }

    /// Counts one change and wakes every waiter.
    public func bump() {
        let waiters = state.withLock { state in
            state.value &+= 1
            let waiting = (Array(state.waiters.values), Array(state.blockedThreads.values))
            state.waiters.removeAll()
            state.blockedThreads.removeAll()
            return waiting
        }
        for waiter in waiters.0 { waiter.resume() }
        for thread in waiters.1 { thread.signal() }
    }

    /// Blocks the calling thread until ``value`` differs from `seen`, or after `timeout`; returns
    /// the value then. For threads of their own (the dispatcher), never for a task.
    @discardableResult
    public func waitBlocking(past seen: UInt64, timeout: Duration) -> UInt64 {
        let semaphore = DispatchSemaphore(value: 0)
        let id: UInt64? = state.withLock { state in
            guard state.value == seen else { return nil }
            state.nextWaiter &+= 1
            state.blockedThreads[state.nextWaiter] = semaphore
            return state.nextWaiter
        }
        guard let id else { return value }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        if semaphore.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut {
            state.withLock { _ = $0.blockedThreads.removeValue(forKey: id) }
        }
        return value
    }

    /// Returns once ``value`` differs from `seen`, or after `timeout`, or when the task is
    /// cancelled, whichever comes first; returns the value then.
    @discardableResult
    public func wait(past seen: UInt64, timeout: Duration) async -> UInt64 {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForChange(past: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        return value
    }

    /// Returns once ``value`` differs from `seen` or the task is cancelled.
    private func waitForChange(past seen: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Under the lock, so a bump or a cancellation either happened before (seen here)
                // or finds the continuation registered.
                let resumeNow = state.withLock { state in
                    if state.value != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
