import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits for SIGINT, SIGTERM or SIGHUP (the terminal closed). Create it before a command announces that it is ready: from
/// then on a signal is never lost. A plain `sigaction` handler posts a POSIX semaphore (one of the
/// few async-signal-safe calls), which `wait()` blocks on.
public final class ShutdownSignal: Sendable {
    public init() {
        ShutdownSignal.installOnce
    }

    /// Blocks until the first of those signals after `init`.
    public func wait() {
        while sem_wait(shutdownSemaphore) != 0 && errno == EINTR {}
    }

    /// Blocks until the first of those signals after `init`, or until `timeout` seconds passed;
    /// true when a signal came.
    public func wait(timeout: TimeInterval) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let whole = Int(timeout.rounded(.down))
        let nanoseconds = deadline.tv_nsec + Int((timeout - Double(whole)) * 1e9)
        deadline.tv_sec += whole + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while true {
            if sem_timedwait(shutdownSemaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }  // ETIMEDOUT
        }
    }

    private static let installOnce: Void = {
        sem_init(shutdownSemaphore, 0, 0)
        // A process may start with these signals blocked (a parent spawning from a thread that
        // blocks them — libdispatch's do); the handler must be able to run on this thread.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        sigaddset(&unblock, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = shutdownHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }()
}

/// Posted by the signal handler; waited on by `ShutdownSignal.wait()`. Behind a pointer, not a
/// Swift variable: the handler may run on the very thread blocked in `sem_wait`, and Swift's
/// exclusivity checks would take that for a conflicting access.
nonisolated(unsafe) private let shutdownSemaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

/// The signal handler: only async-signal-safe work (sem_post).
private let shutdownHandler: @convention(c) (Int32) -> Void = { _ in
    sem_post(shutdownSemaphore)
}
