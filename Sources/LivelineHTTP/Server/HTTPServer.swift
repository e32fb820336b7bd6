import CMicroHTTPD
import Foundation
import LivelineLog
import LivelineModel
import LivelineScheduling
import Synchronization

/// The HTTP/1.1 API server, on libmicrohttpd (a thread pool, each thread with its own epoll set).
///
/// Handlers run synchronously on the worker threads. Every failure is answered in the error
/// shape of `docs/engine.md`; bodies over the limit get 413, non-JSON bodies 415 (unless
/// `requiresJSONBodies` is off), unknown paths 404, wrong methods 405, and requests the protocol
/// rules out 400, 414, 417, 431 or 501 (see `HTTPServer+ProtocolErrors.swift`, which also lists
/// what libmicrohttpd still answers itself). One JSON access-log line is
/// written per request, without query strings, headers or bodies (they may hold tokens).
/// `shutdown()` drains: requests in progress finish, any request that arrives meanwhile (a new
/// connection or a kept-alive one) is answered 503 with `Connection: close`, then the daemon stops.
/// `respond(to:)` answers a request without a socket, on the caller's thread, through the same
/// code (`Responder`; what stays on the wire is listed in `HTTPServer+InProcess.swift`).
///
/// The drain never calls `MHD_quiesce_daemon`: in libmicrohttpd 0.9.75 (Debian 12) with a thread
/// pool and epoll, it removes the listening socket from each worker's epoll set from the calling
/// thread while the worker may remove it too; the loser's `epoll_ctl(EPOLL_CTL_DEL)` fails with
/// `ENOENT` and the library aborts the process ("Failed to remove listen FD from epoll set").
/// `MHD_stop_daemon` alone signals the workers through their inter-thread channel and lets each
/// leave its own loop.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    let accessLog: LogSink
    /// What a request is answered once it is read, on the wire and in-process alike.
    let responder: Responder

    private let daemon = Mutex<DaemonRef?>(nil)
    private let boundPort = Atomic<Int>(0)
    /// Requests being served that arrived before a shutdown began (a drain waits for these).
    let inFlight = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)
    /// Set by the first `shutdown` (a second one, concurrent or later, returns at once).
    private let shuttingDown = Atomic<Bool>(false)
    let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
    private let keepAlive = Mutex<RepeatingTimer?>(nil)

    public init(configuration: HTTPServerConfiguration, router: Router, accessLog: LogSink, errorLog: LogSink? = nil) {
        self.configuration = configuration
        self.accessLog = accessLog
        // A handler's unexpected failure goes to the access log's sink unless `errorLog` is
        // given, so that turning request lines off does not hide failures.
        responder = Responder(router: router, configuration: configuration, errorLog: errorLog ?? accessLog)
    }

    /// The port listened on (the real one when configured with 0); 0 before `start()`.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Every route the server answers.
    public var routes: [Route] { responder.router.routes }

    /// Binds and starts the worker threads.
    public func start() throws {
        try daemon.withLock { daemon in
            guard daemon == nil else { return }
            guard (0...65535).contains(configuration.port) else {
                throw HTTPServerError("port \(configuration.port) is not a TCP port (0…65535)")
            }
            var address = in_addr()
            guard inet_pton(AF_INET, configuration.host, &address) == 1 else {
                throw HTTPServerError("host must be an IPv4 address such as 127.0.0.1 or 0.0.0.0, not '\(configuration.host)'")
            }
            let flags =
                MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue
            let handle = configuration.host.withCString { host -> OpaquePointer? in
                var options = cmhd_options(
                    flags: UInt32(flags),
                    port: UInt16(configuration.port),
                    bind_address: host,
                    thread_pool_size: UInt32(max(1, configuration.threads)),
                    connection_limit: UInt32(max(1, configuration.connectionLimit)),
                    connection_timeout_seconds: UInt32(max(0, configuration.connectionTimeoutSeconds)),
                    connection_memory_limit: connectionMemoryBytes,
                    uri_log: requestLineHandler,
                    uri_log_cls: nil
                )
                let this = Unmanaged.passUnretained(self).toOpaque()
                return cmhd_start(&options, accessHandler, this, completedHandler, this)
            }
            let startError = errno
            guard let handle else {
                let reason = String(cString: strerror(startError))
                throw HTTPServerError(
                    "could not listen on \(configuration.host):\(configuration.port) (\(reason)); is the port in use or the address wrong?"
                )
            }
            daemon = DaemonRef(raw: handle)
            boundPort.store(Int(cmhd_bound_port(handle)), ordering: .relaxed)
            startKeepAlive()
        }
    }

    /// libmicrohttpd's memory per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`): it holds the
    /// request line and headers while they are read, about 64 bytes more per field, and a `Cookie`
    /// header twice (the library copies it to parse it, and keeps each pair as a field), so it is
    /// four times `maxHeaderBytes` (at least libmicrohttpd's default 32 KiB): requests within the
    /// limit made of many small fields or cookie pairs are served, and headers well over it reach
    /// our 431 check. With the defaults (64 KiB): one header field up to about 63 KiB or a
    /// `Cookie` up to about 31 KiB gets the JSON 431; more gets the library's own (431 in HTML).
    /// The library clears all of it after every request on a kept-alive connection, which costs a
    /// pull measurably (`docs/performance.md`, "Reads").
    var connectionMemoryBytes: Int { max(32 << 10, 4 * configuration.maxHeaderBytes) }

    /// Sends a comment on every open event stream now and then, so a client that went away is
    /// noticed (a suspended connection is not polled) and proxies keep the stream open.
    private func startKeepAlive() {
        let interval = configuration.eventStreamKeepAliveSeconds
        guard interval > 0 else { return }
        let timer = RepeatingTimer(every: interval) { [weak self] in
            guard let self else { return }
            for stream in self.streams.withLock({ Array($0.values) }) { stream.comment("keep-alive") }
        }
        keepAlive.withLock { $0 = timer }
    }

    /// Drains and stops: closes event streams, waits up to `timeout` for the requests that arrived
    /// before it to finish (answering later ones 503), on a connection or in-process, then stops
    /// the worker threads if it was started. Safe to call more than once.
    public func shutdown(timeout: Duration = .seconds(10)) {
        // One shutdown at a time: MHD_stop_daemon twice on one daemon makes MHD abort the process.
        guard !shuttingDown.exchange(true, ordering: .relaxed) else { return }
        // Sequentially consistent with the request side (`access`): a request either sees the
        // drain and is answered 503, or this loop sees it counted and waits for it.
        draining.store(true, ordering: .sequentiallyConsistent)
        keepAlive.withLock { $0?.cancel() }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // Streams may still be opened by handlers that passed the draining check: close
            // each round, since MHD_stop_daemon must not find a suspended connection.
            closeEventStreams()
            if inFlight.load(ordering: .sequentiallyConsistent) == 0 { break }
            Thread.sleep(forTimeInterval: 0.005)
        }
        closeEventStreams()
        daemon.withLock { daemon in
            if let current = daemon {
                // Closes the listening socket and every connection, each worker in its own thread.
                MHD_stop_daemon(current.raw)
                daemon = nil
            }
        }
        accessLog.flush()
        responder.errorLog.flush()
    }

    /// Whether a shutdown has begun (requests that arrive now are answered 503).
    public var isShuttingDown: Bool { draining.load(ordering: .sequentiallyConsistent) }

    /// How many requests are being handled right now (open event streams included), not counting
    /// those answered 503 during a shutdown.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    private func closeEventStreams() {
        for stream in streams.withLock({ Array($0.values) }) { stream.close() }
    }

    deinit {
        keepAlive.withLock { $0?.cancel() }
        closeEventStreams()
        if !shuttingDown.load(ordering: .relaxed), let handle = daemon.withLock({ $0 }) { MHD_stop_daemon(handle.raw) }
    }
}

/// The daemon pointer, owned by the server.
struct DaemonRef: @unchecked Sendable {
    let raw: OpaquePointer
}
