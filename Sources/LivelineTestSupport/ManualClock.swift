import Foundation
import Synchronization

/// A clock a test moves by hand (deadlines, timeouts), as a `() -> Date` for configurations.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) { current = Mutex(start) }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// The clock as a function, for `clock:` parameters.
    public var function: @Sendable () -> Date { { [self] in now } }
}
