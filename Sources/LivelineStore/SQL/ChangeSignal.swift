import Synchronization

/// A ``ChangeCounter`` that can also be awaited: a sleeping task wakes up when it is bumped.
///
/// The outbox uses it to wake dispatchers when rows were enqueued (``OutboxRepository/enqueued``),
/// so a change goes out without waiting for a poll interval. Bump it *after* the enqueuing
/// transaction committed (a dispatcher woken earlier would not see the row yet); a bump without new
/// rows only costs an empty claim. It counts this process's writes: with PostgreSQL, `LISTEN/NOTIFY`
/// must bump it for other processes' writes (`engine.md`, "Storage"), and dispatchers should still
/// poll now and then (a timeout) as a safety net.
public final class ChangeSignal: Sendable {
    private struct State {
        var value: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The number of bumps so far. Read it *before* looking for work, then wait past it.
    public var value: UInt64 { state.withLock { $0.value } }

    /// Counts one change and wakes every waiter.
    public func bump() {
        let waiters = state.withLock { state in
            state.value &+= 1
            let waiting = Array(state.waiters.values)
            state.waiters.removeAll()
            return waiting
        }
        for waiter in waiters { waiter.resume() }
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
