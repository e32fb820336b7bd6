import Dispatch
import Foundation
import Synchronization

/// One context's broadcast channel being created at APNs in one environment, in this process
/// (``ChannelManager``): every start that needs the channel waits for it a bounded time
/// (``wait(timeout:)``), and the creation goes on without them when APNs is slow — a management
/// call that hangs must never hold an HTTP worker.
final class ChannelCreation: Sendable {
    /// What came of a creation: the channel linked to the context, or why it has none.
    struct Outcome: Sendable, Hashable {
        var channelID: String?
        var fallback: String?
    }

    private let outcome = Mutex<Outcome?>(nil)
    /// Left once, when the outcome is known.
    private let settled = DispatchGroup()

    init() { settled.enter() }

    /// Whether the outcome is known.
    var isSettled: Bool { outcome.withLock { $0 != nil } }

    /// Sets the outcome, once: false (and nothing changes) when it was set already.
    @discardableResult
    func settle(_ outcome: Outcome) -> Bool {
        let first = self.outcome.withLock { current -> Bool in
            guard current == nil else { return false }
            current = outcome
            return true
        }
        if first { settled.leave() }
        return first
    }

    /// The outcome, waiting for it at most `timeout`; nil while it is still unknown then.
    func wait(timeout: TimeInterval) -> Outcome? {
        _ = settled.wait(timeout: .now() + max(0, timeout))
        return outcome.withLock { $0 }
    }
}
