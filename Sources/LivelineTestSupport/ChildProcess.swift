import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for tests and benchmarks that run another
/// program (`liveline serve`, an independent peer such as aioapns or h2load).
///
/// Not Foundation's `Process`: on Linux, corelibs Foundation 6.3 reads `/proc/self/fd` before every
/// spawn and copies each directory entry's whole 256-byte `d_name`, reading past the end of
/// glibc's directory buffer when the process has many descriptors open — an intermittent
/// segmentation fault in `Process.run()` (swift-corelibs-foundation pull request 5472). Here the
/// child closes every inherited descriptor above 2 with glibc's closefrom action instead, and no
/// directory is read.
///
/// Every pipe is created close-on-exec, so no other child started meanwhile inherits it; the
/// child's signal mask is empty and every signal has its default action, whichever thread spawned
/// it. The child leads a process group of its own, so what it starts can be stopped with it
/// (``run(_:_:environment:input:timeout:)``'s timeout). A name without a slash is looked up on the
/// test process's `PATH`.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// The test process's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// A pipe; the test reads (or, for standard input, writes) its other end.
        case pipe
        /// A file: read as standard input; created or truncated as standard output or error.
        case file(String)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exited with \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let processIdentifier: pid_t
    /// The write end of the child's standard input (with `.pipe`).
    public let standardInput: FileHandle?
    /// The read end of the child's standard output (with `.pipe`).
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error (with `.pipe`).
    public let standardError: FileHandle?

    /// The child's end, shared with the thread that waits for it.
    private final class End: Sendable {
        let termination = Mutex<Termination?>(nil)
        let signal = DispatchSemaphore(value: 0)
    }
    private let end = End()

    /// Starts `executable` (a path, or a name looked up on `PATH`) with `arguments`.
    /// `environment` nil: the test process's own.
    ///
    /// Output goes to `/dev/null` unless asked for: a child that shares the test process's own
    /// streams (`.inherit`) and outlives it — the test process crashed before stopping it — keeps
    /// the test runner's pipe open, and `swift test` then waits for its end forever.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        try Self.check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        try Self.check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }

        // Our ends of the pipes (kept) and the child's ends (closed here once it has them).
        var ours: [Int32: Int32] = [:]
        var theirs: [Int32] = []
        defer { for descriptor in theirs { close(descriptor) } }
        var opened: [Int32] = []
        var succeeded = false
        defer { if !succeeded { for descriptor in opened { close(descriptor) } } }
        for (target, stream) in [(STDIN_FILENO, standardInput), (STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)] {
            switch stream {
            case .inherit:
                break
            case .null:
                try Self.check(
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0),
                    "posix_spawn_file_actions_addopen"
                )
            case .file(let path):
                try Self.check(
                    posix_spawn_file_actions_addopen(&actions, target, path, target == STDIN_FILENO ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644),
                    "posix_spawn_file_actions_addopen \(path)"
                )
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe2(&ends, O_CLOEXEC) == 0 else { throw Failure(description: "pipe2: \(String(cString: strerror(errno)))") }
                let (childEnd, parentEnd) = target == STDIN_FILENO ? (ends[0], ends[1]) : (ends[1], ends[0])
                theirs.append(childEnd)
                opened.append(parentEnd)
                ours[target] = parentEnd
                // dup2 clears close-on-exec on the child's copy only.
                try Self.check(posix_spawn_file_actions_adddup2(&actions, childEnd, target), "posix_spawn_file_actions_adddup2")
            }
        }
        // Nothing else of the test process reaches the child.
        try Self.check(posix_spawn_file_actions_addclosefrom_np(&actions, 3), "posix_spawn_file_actions_addclosefrom_np")

        try Self.startClean(&attributes)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = Self.childEnvironment(environment)
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }

        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { argvBuffer in
            let spawn = { (environmentPointer: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 in
                executable.contains("/")
                    ? posix_spawn(&pid, executable, &actions, &attributes, argvBuffer.baseAddress!, environmentPointer)
                    : posix_spawnp(&pid, executable, &actions, &attributes, argvBuffer.baseAddress!, environmentPointer)
            }
            if let envp { return envp.withUnsafeBufferPointer { spawn($0.baseAddress!) } }
            return spawn(environ)
        }
        guard spawned == 0 else {
            throw Failure(description: "could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        succeeded = true
        processIdentifier = pid
        self.standardInput = ours[STDIN_FILENO].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.standardOutput = ours[STDOUT_FILENO].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.standardError = ours[STDERR_FILENO].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }

        Self.watchEnd(of: pid, into: end)
    }

    /// Signals as a new process has them (none blocked, default handlers), in a process group of
    /// its own.
    private static func startClean(_ attributes: inout posix_spawnattr_t) throws {
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        try check(posix_spawnattr_setsigmask(&attributes, &empty), "posix_spawnattr_setsigmask")
        try check(posix_spawnattr_setsigdefault(&attributes, &all), "posix_spawnattr_setsigdefault")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "posix_spawnattr_setpgroup")
        try check(
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)),
            "posix_spawnattr_setflags"
        )
    }

    /// The child's environment: a crash report goes to its standard error, which tests read (its
    /// standard output is often /dev/null; `SWIFT_BACKTRACE`'s `output-to`, set by scripts/test.sh).
    private static func childEnvironment(_ environment: [String: String]?) -> [String: String]? {
        guard let backtrace = (environment ?? ProcessInfo.processInfo.environment)["SWIFT_BACKTRACE"], backtrace.contains("output-to=stdout")
        else { return environment }
        return (environment ?? ProcessInfo.processInfo.environment)
            .merging(["SWIFT_BACKTRACE": backtrace.replacingOccurrences(of: "output-to=stdout", with: "output-to=stderr")]) { $1 }
    }

    /// One thread waits for the child's end (a blocking wait never runs on a task's thread). It
    /// waits without reaping, then reaps under the lock that `send` holds: a signal never reaches
    /// a pid the system may have given to another process.
    private static func watchEnd(of child: pid_t, into end: End) {
        let thread = Thread {
            var info = siginfo_t()
            while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            end.termination.withLock { termination in
                var status: Int32 = 0
                var reaped: pid_t
                repeat { reaped = waitpid(child, &status, 0) } while reaped < 0 && errno == EINTR
                let signal = status & 0x7f
                termination = reaped < 0 ? .exited(-1) : signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            }
            end.signal.signal()
        }
        thread.name = "child \(child)"
        thread.start()
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { end.termination.withLock { $0 } == nil }

    /// How it ended, or nil while it runs.
    public var termination: Termination? { end.termination.withLock { $0 } }

    /// Sends `signal` unless the child already ended (its pid is not reaped before then).
    public func send(_ signal: Int32) {
        end.termination.withLock { termination in
            if termination == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Sends `signal` to the child's process group (the child and what it started), unless the
    /// child already ended (the group's id stays the child's until it is reaped).
    public func sendToGroup(_ signal: Int32) {
        end.termination.withLock { termination in
            if termination == nil { _ = kill(-processIdentifier, signal) }
        }
    }

    /// Waits for the child's end.
    @discardableResult
    public func waitUntilExit() -> Termination {
        end.signal.wait()
        end.signal.signal()
        return end.termination.withLock { $0 }!
    }

    /// Waits at most `timeout` seconds; nil when it still runs.
    public func wait(timeout: TimeInterval) -> Termination? {
        guard end.signal.wait(timeout: .now() + timeout) == .success else { return nil }
        end.signal.signal()
        return end.termination.withLock { $0 }
    }

    /// Runs a program to its end with its output collected (standard error beside it, read on a
    /// thread of its own so a chatty child cannot block on a full pipe). After `timeout` the child
    /// and what it started (its process group) are killed, so the pipes close and this returns.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil, input: Data? = nil,
        timeout: TimeInterval = 120
    ) throws -> (termination: Termination, output: Data, errors: Data) {
        let child = try ChildProcess(
            executable, arguments, environment: environment, standardInput: input == nil ? .null : .pipe,
            standardOutput: .pipe, standardError: .pipe
        )
        let errors = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [standardError = child.standardError!] in
            let data = standardError.readDataToEndOfFile()
            errors.withLock { $0 = data }
            errorsRead.signal()
        }
        if let input, let standardInput = child.standardInput {
            Thread.detachNewThread {
                // A child that exits before reading everything: the write fails (EPIPE) instead of
                // raising SIGPIPE (default: the test process dies; ignored: FileHandle traps).
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                try? standardInput.write(contentsOf: input)
                try? standardInput.close()
            }
        }
        // The output is read to its end: until the child and whatever it started with the pipes
        // are gone. On time out the group is killed even after the child ended, as long as the
        // pipes are still open (a member of the group still holds them, so its id is still its).
        let reading = Atomic<Bool>(true)
        let group = child.processIdentifier
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + timeout)
        timer.setEventHandler {
            child.sendToGroup(SIGKILL)
            if reading.load(ordering: .relaxed) { _ = kill(-group, SIGKILL) }
        }
        timer.resume()
        defer { timer.cancel() }
        let output = child.standardOutput!.readDataToEndOfFile()
        errorsRead.wait()
        reading.store(false, ordering: .relaxed)
        return (child.waitUntilExit(), output, errors.withLock { $0 })
    }

    private static func check(_ result: Int32, _ call: String) throws {
        guard result == 0 else { throw Failure(description: "\(call): \(String(cString: strerror(result)))") }
    }

    /// A child nobody waited for does not outlive its test.
    deinit { send(SIGKILL) }
}
