import Foundation

/// Polls `condition` (which may wait itself) every hundredth of a second until it holds or `timeout` passed;
/// returns whether it held. For waiting on background work (the dispatcher, a child process)
/// without fixed sleeps. The default bound is generous: a suite of hundreds of tests on two cores
/// (the PostgreSQL pass) can hold up a dispatcher for many seconds, and a bound only costs time
/// when the condition never holds.
public func eventually(timeout: TimeInterval = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try await condition() { return true }
        if Date() >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// Polls `condition` every few milliseconds for up to `timeout` seconds on the calling thread, without giving
/// it up: what follows runs the moment the condition holds, even while the threads every test's
/// async code shares are busy (use it inside ``offThePool(_:)`` from an async test).
public func eventuallyBlocking(timeout: TimeInterval = 30, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        if Date() >= deadline { return false }
        usleep(5000)
    }
    return true
}

/// Runs blocking `work` (a child process to its end, a socket read) on a thread of its own and
/// awaits its result: a test that waits long must not hold one of the few threads every test's
/// async code shares, or the other tests stall with it (a keep-alive connection of theirs can
/// then idle past the server's timeout).
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
