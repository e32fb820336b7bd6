import Foundation
import LivelineStore
import Synchronization

/// A ``Database`` whose writes wait ``delay`` after their body, before the commit, with their
/// locks held: two writes of a test then overlap on PostgreSQL as writes of two instances can.
public struct SlowCommitDatabase: Database {
    public let inner: any Database
    private let wait = Pause()

    private final class Pause: Sendable {
        let seconds = Mutex<TimeInterval>(0)
        /// Signalled each time a write's body is done and its pause begins.
        let paused = DispatchSemaphore(value: 0)
    }

    public init(inner: any Database) {
        self.inner = inner
    }

    /// The wait before each commit from now on.
    public var delay: TimeInterval {
        get { wait.seconds.withLock { $0 } }
        nonmutating set { wait.seconds.withLock { $0 = newValue } }
    }

    /// Waits until a write's body is done and it holds its locks, uncommitted (at most
    /// `timeout`); false when none did.
    public func waitForPausedWrite(timeout: TimeInterval = 10) -> Bool {
        wait.paused.wait(timeout: .now() + timeout) == .success
    }

    public var dialect: SQLDialect { inner.dialect }
    public var location: String { inner.location }
    public func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T { try inner.read(body) }
    public func changeVersion() throws -> UInt64? { try inner.changeVersion() }
    public func changeVersionOfEveryWriter() throws -> UInt64? { try inner.changeVersionOfEveryWriter() }
    public func onChangesElsewhere(_ handler: @escaping @Sendable () -> Void) { inner.onChangesElsewhere(handler) }
    public func now() -> Date { inner.now() }
    public var isShared: Bool { inner.isShared }
    @discardableResult public func close() -> Bool { inner.close() }

    @discardableResult
    public func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        let pause = delay
        return try inner.write { transaction in
            let result = try body(transaction)
            if pause > 0 {
                wait.paused.signal()
                Thread.sleep(forTimeInterval: pause)
            }
            return result
        }
    }
}
