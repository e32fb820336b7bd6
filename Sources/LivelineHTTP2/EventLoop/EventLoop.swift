import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One thread waiting on one epoll set: the file descriptors registered with it are served on that
/// thread only, so the objects behind them need no locks. Other threads hand it work with
/// `execute(_:)` (woken through an eventfd) and timers with `schedule(after:_:)`.
public final class EventLoop: @unchecked Sendable {
    /// What a registered file descriptor's owner does when it is ready.
    protocol Handler: AnyObject {
        func ready(readable: Bool, writable: Bool, hangup: Bool)
    }

    private let epoll: Int32
    private let wakeup: Int32
    /// Whether `wakeup` was closed, under the lock every write to it takes: a task handed over
    /// after the loop ended must not write into whatever the number was given to next (a
    /// PostgreSQL connection took it once, and its server refused the 8 bytes: "invalid
    /// frontend message type 1").
    private let wakeupClosed = Mutex(false)
    /// Only touched on the loop thread.
    private var handlers: [Int32: any Handler] = [:]
    private var timers: [(deadline: UInt64, task: () -> Void)] = []
    private let tasks = Mutex<[@Sendable () -> Void]>([])
    /// The tasks the loop thread runs now (only touched on it).
    private var running: [@Sendable () -> Void] = []
    private let stopping = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)

    public init(name: String) throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard epoll >= 0, wakeup >= 0 else { throw HTTP2Error.system("epoll_create1/eventfd") }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeup))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event)
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Whether the caller runs on this loop's thread.
    public var inLoop: Bool { threadID.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// Runs `task` on the loop thread (now, when called from it).
    public func execute(_ task: @escaping @Sendable () -> Void) {
        if inLoop {
            task()
            return
        }
        // One wake-up per batch: a task joining a queue that was not empty finds the wake-up its
        // first task wrote (or will write) still unread, as the loop takes the whole queue at once.
        let first = tasks.withLock { tasks in
            tasks.append(task)
            return tasks.count == 1
        }
        guard first else { return }
        wakeupClosed.withLock { closed in
            guard !closed else { return }  // ended: the task never runs, as any handed over late
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
    }

    /// Runs `task` on the loop thread after `delay` seconds. Call on the loop thread.
    func schedule(after delay: Double, _ task: @escaping () -> Void) {
        precondition(inLoop, "schedule(after:) is for the loop thread")
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, delay) * 1e9)
        timers.append((deadline, task))
    }

    /// Watches `fd` for reading (always) and writing (when `writable`). Call on the loop thread.
    func register(_ fd: Int32, handler: any Handler, writable: Bool = false) {
        handlers[fd] = handler
        var event = epoll_event(events: Self.mask(writable: writable), data: epoll_data_t(fd: fd))
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
    }

    /// Changes whether `fd` is watched for writing. Call on the loop thread.
    func update(_ fd: Int32, writable: Bool) {
        var event = epoll_event(events: Self.mask(writable: writable), data: epoll_data_t(fd: fd))
        epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` (the caller closes it). Call on the loop thread.
    func unregister(_ fd: Int32) {
        handlers[fd] = nil
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
    }

    /// Ends the loop thread after the current iteration and waits for it.
    public func stop() {
        // Only the first call waits for the thread: a second one finds it ended.
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        execute {}
        if !inLoop { finished.wait() }
    }

    private static func mask(writable: Bool) -> UInt32 {
        EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
    }

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopping.load(ordering: .relaxed) {
            let count = epoll_wait(epoll, &events, Int32(events.count), nextTimeout())
            if count < 0 && errno != EINTR { break }
            for index in 0..<max(0, Int(count)) {
                let event = events[index]
                let fd = event.data.fd
                if fd == wakeup {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, 8)
                    continue
                }
                let flags = event.events
                handlers[fd]?.ready(
                    readable: flags & EPOLLIN.rawValue != 0,
                    writable: flags & EPOLLOUT.rawValue != 0,
                    hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                )
            }
            // Swapped with the drained buffer: both keep their capacity.
            tasks.withLock { swap(&$0, &running) }
            for task in running { task() }
            running.removeAll(keepingCapacity: true)
            runDueTimers()
        }
        close(epoll)
        wakeupClosed.withLock { closed in
            closed = true
            close(wakeup)
        }
        finished.signal()
    }

    private func nextTimeout() -> Int32 {
        guard let next = timers.map(\.deadline).min() else { return 1000 }
        let now = DispatchTime.now().uptimeNanoseconds
        return next <= now ? 0 : Int32(min(1000, (next - now) / 1_000_000 + 1))
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.task() }
    }
}
