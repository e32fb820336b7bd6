import Foundation

/// Loss, delay and partitions on a ``NetworkNamespace``'s veth pair without `sch_netem`: some
/// kernels (this project's CI machines among them: `CONFIG_NET_SCH_NETEM` is not set) have no
/// `tc netem`. Netfilter sends every packet crossing the pair, both ways, to a queue
/// (`iptables -j NFQUEUE`, "nfnetlink_queue"), where a small program inside the namespace gives
/// each one its verdict: dropped with the loss share, let through after the delay (in order), or
/// dropped always (a partition: no reset, no ICMP; connections hang as on a cut link). Packets
/// stay in the kernel meanwhile, so TCP sees real loss and delay.
///
/// The program is Python's standard library only (`nfqueue.py` below, written to a temporary
/// file), speaking netlink as the kernel's `linux/netfilter/nfnetlink_queue.h` describes it; it
/// takes one command a line on its standard input and answers `ok …` on its output.
final class PacketDelayer: Sendable {
    private let child: ChildProcess
    private let script: URL

    /// Starts the program inside `namespace` and sends the packets of `device` (the pair's end
    /// inside) to it, in both directions; no faults yet.
    init(namespace name: String, device: String) throws {
        script = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-nfqueue-\(UUID().uuidString).py")
        try Data(Self.program.utf8).write(to: script)
        child = try ChildProcess(
            "/usr/sbin/ip", ["netns", "exec", name, "python3", "-u", script.path], standardInput: .pipe, standardOutput: .pipe,
            standardError: .inherit)
        do {
            _ = try answer()  // "ok ready": the queue is bound
            for rule in [["INPUT", "-i"], ["OUTPUT", "-o"]] {
                try NetworkNamespace.run(
                    "/usr/sbin/ip",
                    ["netns", "exec", name, Self.iptables, "-w", "-A", rule[0], rule[1], device, "-j", "NFQUEUE", "--queue-num", "0"])
            }
        } catch {
            stop()
            throw error
        }
    }

    /// iptables with the kernel's own xtables (the NFQUEUE target), not nftables' translation.
    static let iptables = "/usr/sbin/iptables-legacy"

    /// Sends `command` (`clean`, `lossy PERCENT MILLISECONDS`, `partition`, `stats`) and returns
    /// the answer after `ok `.
    @discardableResult
    func send(_ command: String) throws -> String {
        try child.standardInput!.write(contentsOf: Data((command + "\n").utf8))
        return try answer()
    }

    private func answer() throws -> String {
        var line = Data()
        while true {
            let byte = try child.standardOutput!.read(upToCount: 1) ?? Data()
            guard let first = byte.first else {
                throw NetworkNamespace.Failure("the packet delayer ended (\(child.termination.map { "\($0)" } ?? "?"))")
            }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("ok") else { throw NetworkNamespace.Failure("the packet delayer said: \(text)") }
        return String(text.dropFirst(3))
    }

    func stop() {
        try? child.standardInput?.close()
        if child.wait(timeout: 5) == nil {
            child.send(SIGKILL)
            _ = child.wait(timeout: 5)
        }
        try? FileManager.default.removeItem(at: script)
    }

    /// The verdict program.
    static let program = #"""
        import os, random, select, socket, struct, sys, time
        from collections import deque

        NETLINK_NETFILTER = 12
        NFNL_SUBSYS_QUEUE = 3
        NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG = 0, 1, 2
        NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN = 1, 2, 3
        NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
        NFQNL_CFG_CMD_BIND = 1
        NFQNL_COPY_META = 1
        NF_DROP, NF_ACCEPT = 0, 1
        NF_INET_LOCAL_IN = 1
        NLM_F_REQUEST, NLM_F_ACK = 1, 4
        NLMSG_ERROR = 2
        QUEUE = 0

        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        sock.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE (root)
        sock.bind((0, 0))
        seq = 0

        def attr(kind, payload):
            data = struct.pack("=HH", 4 + len(payload), kind) + payload
            return data + b"\0" * (-len(data) % 4)

        def message(kind, attrs, flags=NLM_F_REQUEST):
            global seq
            seq += 1
            body = struct.pack("!BBH", socket.AF_UNSPEC, 0, QUEUE) + b"".join(attrs)
            return struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | kind, flags, seq, 0) + body

        def configure(attrs):
            sock.send(message(NFQNL_MSG_CONFIG, attrs, NLM_F_REQUEST | NLM_F_ACK))
            data = sock.recv(65536)
            length, kind = struct.unpack_from("=IH", data)
            if kind == NLMSG_ERROR:
                (error,) = struct.unpack_from("=i", data, 16)
                if error != 0:
                    raise SystemExit("nfqueue config failed: %s" % os.strerror(-error))

        configure([attr(NFQA_CFG_CMD, struct.pack("!BBH", NFQNL_CFG_CMD_BIND, 0, 0))])
        configure([attr(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))])
        configure([attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", 65536))])

        def verdict(packet, accept):
            sock.send(message(NFQNL_MSG_VERDICT, [attr(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT if accept else NF_DROP, packet))]))

        mode, loss, delay = "clean", 0.0, 0.0
        held = deque()  # (due, packet id), in arrival order
        stats = {"passed": 0, "delayed": 0, "lost": 0, "cut": 0}
        print("ok ready", flush=True)
        while True:
            timeout = max(0.0, held[0][0] - time.monotonic()) if held else 1.0
            readable, _, _ = select.select([sock, sys.stdin], [], [], timeout)
            if sys.stdin in readable:
                line = sys.stdin.readline()
                if not line:
                    break
                words = line.split()
                if words[0] == "clean":
                    mode = "clean"
                elif words[0] == "lossy":
                    mode, loss, delay = "lossy", float(words[1]) / 100, float(words[2]) / 1000
                elif words[0] == "partition":
                    mode = "partition"
                print("ok " + " ".join("%s=%d" % item for item in sorted(stats.items())), flush=True)
            if sock in readable:
                while True:
                    try:
                        data = sock.recv(1 << 20, socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        break
                    except OSError:
                        break  # ENOBUFS: the kernel dropped some of its messages (their packets wait for a verdict it no longer has)
                    offset = 0
                    while offset + 16 <= len(data):
                        length, kind = struct.unpack_from("=IH", data, offset)
                        if length < 16:
                            break
                        if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                            at = offset + 20
                            while at + 4 <= offset + length:
                                size, akind = struct.unpack_from("=HH", data, at)
                                if size < 4:
                                    break
                                if akind & 0x7FFF == NFQA_PACKET_HDR:
                                    packet, _, hook = struct.unpack_from("!IHB", data, at + 4)
                                    if mode == "partition":
                                        stats["cut"] += 1
                                        verdict(packet, False)
                                    elif hook != NF_INET_LOCAL_IN:
                                        stats["passed"] += 1  # loss and delay go one way, as netem on one end of the pair
                                        verdict(packet, True)
                                    elif mode == "lossy" and random.random() < loss:
                                        stats["lost"] += 1
                                        verdict(packet, False)
                                    elif mode == "lossy" and delay > 0:
                                        stats["delayed"] += 1
                                        held.append((time.monotonic() + delay, packet))
                                    else:
                                        stats["passed"] += 1
                                        verdict(packet, True)
                                at += (size + 3) & ~3
                        offset += (length + 3) & ~3
            now = time.monotonic()
            while held and held[0][0] <= now:
                _, packet = held.popleft()
                verdict(packet, mode != "partition")
        """#
}
