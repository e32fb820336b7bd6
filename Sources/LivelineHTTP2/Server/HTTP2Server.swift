import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 server (TLS with ALPN `h2`, or h2c) on nghttp2: non-blocking sockets, one epoll loop
/// per thread, each with its own listening socket (SO_REUSEPORT) and many connections, each
/// connection with many concurrent streams. `shutdown()` sends GOAWAY to every connection.
public final class HTTP2Server: Sendable {
    public let configuration: HTTP2ServerConfiguration
    let handler: any HTTP2RequestHandler
    private let loops = Mutex<[LoopState]>([])
    private let boundPort = Atomic<Int>(0)
    private let nextConnectionID = Atomic<UInt64>(1)
    private let openConnections = Atomic<Int>(0)

    public init(configuration: HTTP2ServerConfiguration, handler: any HTTP2RequestHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// The port listened on (the real one when configured with 0).
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Connections open right now.
    public var connectionCount: Int { openConnections.load(ordering: .relaxed) }

    /// Binds and starts the event loops.
    public func start() throws {
        try loops.withLock { loops in
            guard loops.isEmpty else { return }
            var port = configuration.port
            for index in 0..<max(1, configuration.threads) {
                let fd = try Self.listen(host: configuration.host, port: port)
                if port == 0 { port = Self.localPort(fd) }
                let loop = try EventLoop(name: "h2-\(index)")
                let state = LoopState(loop: loop, listenFD: fd)
                loops.append(state)
                let listener = Listener(fd: fd, server: self, state: state)
                loop.execute { loop.register(fd, handler: listener) }
            }
            boundPort.store(port, ordering: .relaxed)
        }
    }

    /// Stops accepting, sends GOAWAY on every connection, waits up to `timeout` for them to
    /// close, then stops the loops.
    public func shutdown(timeout: Duration = .seconds(5)) {
        let states = loops.withLock { loops -> [LoopState] in
            defer { loops = [] }; return loops
        }
        for state in states {
            state.loop.execute {
                state.loop.unregister(state.listenFD)
                close(state.listenFD)
                for connection in state.connections.values {
                    connection.goAway(errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
                }
            }
        }
        let deadline = ContinuousClock.now + timeout
        while openConnections.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        for state in states {
            let done = DispatchSemaphore(value: 0)
            state.loop.execute {
                for connection in Array(state.connections.values) { connection.close(reason: "server stopped") }
                done.signal()
            }
            done.wait()
            state.loop.stop()
        }
    }

    // MARK: Internals

    func accepted(fd: Int32, state: LoopState) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let transport: any Transport
        do {
            if let tls = configuration.tls {
                transport = try TLSTransport(fd: fd, context: tls, serverName: nil)
            } else {
                transport = PlainTransport(fd: fd)
            }
        } catch {
            close(fd)
            return
        }
        let id = nextConnectionID.add(1, ordering: .relaxed).oldValue
        let connection = HTTP2ServerConnection(id: id, state: state, transport: transport, server: self)
        state.connections[ObjectIdentifier(connection)] = connection
        openConnections.add(1, ordering: .relaxed)
        connection.start()
    }

    func connectionEnded(_ connection: HTTP2ServerConnection) {
        openConnections.subtract(1, ordering: .relaxed)
        handler.connectionClosed(connection.id)
    }

    static func listen(host: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTP2Error.system("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw HTTP2Error("\(host) is not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 1024) == 0 else {
            let error = HTTP2Error.system("listening on \(host):\(port)")
            close(fd)
            throw error
        }
        return fd
    }

    static func localPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// What one loop thread owns: its loop, its listening socket and its connections (touched only
/// on that loop's thread).
final class LoopState: @unchecked Sendable {
    let loop: EventLoop
    let listenFD: Int32
    var connections: [ObjectIdentifier: HTTP2ServerConnection] = [:]

    init(loop: EventLoop, listenFD: Int32) {
        self.loop = loop
        self.listenFD = listenFD
    }
}

/// Accepts connections on a loop's listening socket (created on one thread, then used only on
/// its loop's thread).
final class Listener: EventLoop.Handler, @unchecked Sendable {
    let fd: Int32
    unowned let server: HTTP2Server
    let state: LoopState

    init(fd: Int32, server: HTTP2Server, state: LoopState) {
        self.fd = fd
        self.server = server
        self.state = state
    }

    func ready(readable: Bool, writable: Bool, hangup: Bool) {
        while true {
            let client = clinux_accept4(fd, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if client < 0 { return }
            server.accepted(fd: client, state: state)
        }
    }
}
