import CLinux
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A network namespace of one test, joined to the test process's own by a veth pair (Debian's
/// iproute2), with faults put on the pair: loss, delay, or a partition (every packet dropped,
/// both ways, without a reset: a black hole). The faults are verdicts of a ``PacketDelayer`` on
/// every packet of the pair (netfilter's queue), since this project's CI kernels have no `tc
/// netem`. Traffic goes only between the test process and what it runs in the namespace
/// (`docs/reliability.md`, "Network faults").
///
/// Names hold the test process's id (`llnf-<pid>-<n>`, devices `lln<pid>h<n>` and `…i<n>`), so
/// parallel runs never share one; ``init()`` first removes what a run that is gone left behind.
/// ``remove()`` deletes the namespace (the pair goes with it); call it in a `defer`.
///
/// Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN), `ip`, `iptables-legacy` and `python3`:
/// ``unavailableReason`` says why not, for the tests to skip with.
public final class NetworkNamespace: Sendable {
    /// What every name starts with.
    public static let prefix = "llnf"
    /// The namespace's name (`ip netns exec NAME …`).
    public let name: String
    /// The pair's end in the test process's namespace, and the one inside.
    public let hostDevice: String
    public let innerDevice: String
    /// The addresses of the two ends (a /30 of 10.213.0.0/16).
    public let hostAddress: String
    public let innerAddress: String
    private let removed = Atomic<Bool>(false)
    private let delayer: PacketDelayer

    private static let counter = Atomic<Int>(0)

    /// Why namespaces cannot be made here, or nil when they can (tried once: a namespace made and
    /// deleted).
    public static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "not root: making network namespaces (ip netns) needs root or CAP_SYS_ADMIN" }
        for tool in ["/usr/sbin/ip", PacketDelayer.iptables, "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (install iproute2, iptables and python3; scripts/install-deps.sh does)"
        }
        let probe = "\(prefix)-\(getpid())-probe"
        do {
            try ip(["netns", "add", probe])
            try ip(["netns", "del", probe])
            return nil
        } catch {
            return "this machine does not let the tests make network namespaces: \(error)"
        }
    }()

    /// Makes the namespace, the pair and its addresses; up, without faults.
    public init() throws {
        Self.removeStale()
        let pid = Int(getpid())
        let index = Self.counter.add(1, ordering: .relaxed).newValue
        name = "\(Self.prefix)-\(pid)-\(index)"
        hostDevice = "lln\(pid)h\(index)"
        innerDevice = "lln\(pid)i\(index)"
        // A /30 not used yet here, starting at one drawn from the process id.
        let used = (try? Self.ip(["-o", "-4", "addr", "show"])) ?? ""
        var slot = (pid &* 7 &+ index &* 131) % 16_384
        func addresses(_ slot: Int) -> (String, String) {
            ("10.213.\(slot >> 6).\(((slot & 63) << 2) + 1)", "10.213.\(slot >> 6).\(((slot & 63) << 2) + 2)")
        }
        while used.contains(" \(addresses(slot).0)/") || used.contains(" \(addresses(slot).1)/") { slot = (slot + 1) % 16_384 }
        (hostAddress, innerAddress) = addresses(slot)
        do {
            try Self.ip(["netns", "add", name])
            try Self.ip(["link", "add", hostDevice, "type", "veth", "peer", "name", innerDevice, "netns", name])
            try Self.ip(["addr", "add", "\(hostAddress)/30", "dev", hostDevice])
            try Self.ip(["link", "set", hostDevice, "up"])
            try Self.ip(["-n", name, "addr", "add", "\(innerAddress)/30", "dev", innerDevice])
            try Self.ip(["-n", name, "link", "set", innerDevice, "up"])
            try Self.ip(["-n", name, "link", "set", "lo", "up"])
        } catch {
            _ = try? Self.ip(["link", "del", hostDevice])
            _ = try? Self.ip(["netns", "del", name])
            throw error
        }
        do {
            delayer = try PacketDelayer(namespace: name, device: innerDevice)
        } catch {
            _ = try? Self.ip(["netns", "del", name])
            throw error
        }
    }

    deinit { remove() }

    /// Deletes the namespace and the pair (once; later calls do nothing).
    public func remove() {
        guard !removed.exchange(true, ordering: .relaxed) else { return }
        delayer.stop()
        _ = try? Self.ip(["link", "del", hostDevice])
        _ = try? Self.ip(["netns", "del", name])
    }

    // MARK: Faults

    /// Every packet into the namespace is dropped with `lossPercent` and the others held
    /// `delayMilliseconds` (one way, as `tc netem` on the pair's host end).
    public func impair(lossPercent: Int, delayMilliseconds: Int) throws {
        try delayer.send("lossy \(lossPercent) \(delayMilliseconds)")
    }

    /// Every packet each way is dropped: a partition (no reset, no ICMP; connections hang).
    public func partition() throws {
        try delayer.send("partition")
    }

    /// No faults any more.
    public func heal() throws {
        try delayer.send("clean")
    }

    /// The packets so far: passed at once, delayed, lost (the loss share), cut (partition).
    public func packetCounts() throws -> String {
        try delayer.send("stats")
    }

    // MARK: Running inside

    /// The command line that runs `arguments` inside the namespace.
    public func command(_ arguments: [String]) -> (String, [String]) {
        ("/usr/sbin/ip", ["netns", "exec", name] + arguments)
    }

    /// Runs `body` on a thread of its own that joined the namespace: sockets it opens, and the
    /// threads it starts, belong to the namespace (an in-process server listening inside it).
    public func inside<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let descriptor = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure("open /run/netns/\(name): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let outcome = ThreadOutcome<T>()
        let done = DispatchSemaphore(value: 0)
        let name = self.name
        let thread = Thread {
            if setns(descriptor, 0x4000_0000) != 0 {  // CLONE_NEWNET
                outcome.result = .failure(Failure("setns into \(name): \(String(cString: strerror(errno)))"))
            } else {
                outcome.result = Result { try body() }
            }
            done.signal()
        }
        thread.start()
        done.wait()
        return try outcome.result!.get()
    }

    // MARK: Helpers

    /// Deletes namespaces (and their pairs) of this prefix whose process is gone, and stops what
    /// still runs in them.
    public static func removeStale() {
        let listed = (try? ip(["netns", "list"])) ?? ""
        for line in listed.split(separator: "\n") {
            let namespace = String(line.split(separator: " ").first ?? "")
            let parts = namespace.split(separator: "-")
            guard parts.count == 3, parts[0] == prefix, let pid = Int32(parts[1]), pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            // What that run left running inside (its PostgreSQL, its packet delayer) goes too.
            for process in ((try? ip(["netns", "pids", namespace])) ?? "").split(separator: "\n").compactMap({ Int32($0) }) {
                kill(process, SIGKILL)
            }
            _ = try? ip(["netns", "del", namespace])
        }
        let links = (try? ip(["-o", "link", "show"])) ?? ""
        for line in links.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 1 else { continue }
            let device = String(fields[1].prefix { $0 != ":" && $0 != "@" })
            guard device.hasPrefix("lln"), let pid = Int32(device.dropFirst(3).prefix { $0.isNumber }), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { _ = try? ip(["link", "del", device]) }
        }
    }

    @discardableResult
    static func ip(_ arguments: [String]) throws -> String { try run("/usr/sbin/ip", arguments) }

    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let (termination, output, errors) = try ChildProcess.run(program, arguments, timeout: 30)
        guard termination == .exited(0) else {
            let message = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure("\(program) \(arguments.joined(separator: " ")) failed (\(termination)): \(message)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// What a thread of ``NetworkNamespace/inside(_:)`` produced: written before it signals, read
/// after the wait.
final class ThreadOutcome<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
