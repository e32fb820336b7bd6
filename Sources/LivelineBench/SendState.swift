import Synchronization

/// Counts a benchmark's pushes started and finished; resumes the waiter after the last.
final class SendState: Sendable {
    private struct Counts {
        var started = 0
        var finished = 0
        var delivered = 0
        var continuation: CheckedContinuation<Int, Never>?
    }

    private let total: Int
    private let counts: Mutex<Counts>

    init(count: Int, continuation: CheckedContinuation<Int, Never>) {
        total = count
        counts = Mutex(Counts(continuation: continuation))
    }

    /// Whether another push may start.
    func startOne() -> Bool {
        counts.withLock { counts in
            guard counts.started < total else { return false }
            counts.started += 1
            return true
        }
    }

    /// Records one answer; true when it was the last (the waiter is resumed).
    func finishOne(delivered: Bool) -> Bool {
        let done = counts.withLock { counts -> (CheckedContinuation<Int, Never>, Int)? in
            counts.finished += 1
            if delivered { counts.delivered += 1 }
            guard counts.finished == total, let continuation = counts.continuation else { return nil }
            counts.continuation = nil
            return (continuation, counts.delivered)
        }
        guard let (continuation, delivered) = done else { return false }
        continuation.resume(returning: delivered)
        return true
    }
}
