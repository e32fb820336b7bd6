import CMicroHTTPD
import Foundation
import LivelineModel
import Synchronization

/// The HTTP/1.1 API server, on libmicrohttpd (a thread pool, each thread with its own epoll set).
///
/// Handlers run synchronously on the worker threads. Every failure is answered in the error
/// shape of `engine.md`; bodies over the limit get 413, non-JSON bodies 415, unknown paths 404,
/// wrong methods 405. One JSON access-log line is written per request, without query strings,
/// headers or bodies (they may hold tokens). `shutdown()` stops accepting, lets in-flight requests
/// finish and answers any further request on a kept-alive connection with 503.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    let router: Router
    let accessLog: LogSink

    private let daemon = Mutex<DaemonRef?>(nil)
    private let boundPort = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)
    let streams = Mutex<[ObjectIdentifier: EventStream]>([:])

    public init(configuration: HTTPServerConfiguration, router: Router, accessLog: LogSink) {
        self.configuration = configuration
        self.router = router
        self.accessLog = accessLog
    }

    /// The port listened on (the real one when configured with 0); 0 before `start()`.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Every route the server answers.
    public var routes: [Route] { router.routes }

    /// Binds and starts the worker threads.
    public func start() throws {
        try daemon.withLock { daemon in
            guard daemon == nil else { return }
            guard (0...65535).contains(configuration.port) else {
                throw HTTPServerError("port \(configuration.port) is not a TCP port (0…65535)")
            }
            let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue
            let handle = configuration.host.withCString { host -> OpaquePointer? in
                var options = cmhd_options(
                    flags: UInt32(flags),
                    port: UInt16(configuration.port),
                    bind_address: host,
                    thread_pool_size: UInt32(max(1, configuration.threads)),
                    connection_limit: UInt32(max(1, configuration.connectionLimit)),
                    connection_timeout_seconds: UInt32(max(0, configuration.connectionTimeoutSeconds)),
                    connection_memory_limit: 16 * 1024
                )
                let this = Unmanaged.passUnretained(self).toOpaque()
                return cmhd_start(&options, accessHandler, this, completedHandler, this)
            }
            guard let handle else {
                let reason = String(cString: strerror(errno))
                throw HTTPServerError(
                    "could not listen on \(configuration.host):\(configuration.port) (\(reason)); is the port in use or the address wrong?"
                )
            }
            daemon = DaemonRef(raw: handle)
            boundPort.store(Int(cmhd_bound_port(handle)), ordering: .relaxed)
        }
    }

    /// Stops accepting connections, closes event streams, waits up to `timeout` for in-flight
    /// requests to finish, then stops the worker threads. Safe to call more than once.
    public func shutdown(timeout: Duration = .seconds(10)) {
        guard let handle = daemon.withLock({ $0 }) else { return }
        draining.store(true, ordering: .relaxed)
        let listener = MHD_quiesce_daemon(handle.raw)
        if listener >= 0 { close(listener) }
        for stream in streams.withLock({ Array($0.values) }) { stream.close() }
        let deadline = ContinuousClock.now + timeout
        while inFlight.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        daemon.withLock { daemon in
            if let current = daemon {
                MHD_stop_daemon(current.raw)
                daemon = nil
            }
        }
        accessLog.flush()
    }

    /// How many requests are being handled right now (open event streams included).
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    deinit {
        if let handle = daemon.withLock({ $0 }) { MHD_stop_daemon(handle.raw) }
    }
}

/// The daemon pointer, owned by the server.
struct DaemonRef: @unchecked Sendable {
    let raw: OpaquePointer
}
