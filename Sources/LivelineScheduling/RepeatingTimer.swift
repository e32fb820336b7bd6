import Dispatch
import Foundation
import Synchronization

/// Work run every `interval` on a dispatch queue until cancelled: with ``Scheduler``, the one way
/// Liveline waits outside its event loops and its own threads.
public final class RepeatingTimer: Sendable {
    private let source: Mutex<(any DispatchSourceTimer)?>

    /// Runs `work` on `queue` every `interval` seconds, the first time after `firstAfter` (by
    /// default one interval).
    public init(
        every interval: TimeInterval, firstAfter: TimeInterval? = nil, queue: DispatchQueue = .global(),
        _ work: @escaping @Sendable () -> Void
    ) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + (firstAfter ?? interval), repeating: interval)
        timer.setEventHandler(handler: work)
        timer.resume()
        source = Mutex(timer)
    }

    /// Stops it: a run in progress finishes, none starts after. Safe to call more than once.
    public func cancel() {
        source.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    deinit { cancel() }
}

/// Work run once after a delay.
public enum Scheduler {
    /// Runs `work` on `queue` after `delay` seconds.
    public static func after(_ delay: TimeInterval, on queue: DispatchQueue = .global(), _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + delay, execute: work)
    }

    /// Runs `work` on `queue` after `delay`.
    public static func after(_ delay: Duration, on queue: DispatchQueue = .global(), _ work: @escaping @Sendable () -> Void) {
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: work)
    }
}
