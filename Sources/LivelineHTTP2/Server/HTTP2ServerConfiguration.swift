/// How an `HTTP2Server` listens.
public struct HTTP2ServerConfiguration: Sendable {
    /// IPv4 address to bind.
    public var host: String
    /// 0 picks a free port (read `HTTP2Server.port` after `start()`).
    public var port: Int
    /// TLS with ALPN `h2`; nil serves HTTP/2 with prior knowledge (h2c).
    public var tls: TLSContext?
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` announced to clients.
    public var maxConcurrentStreams: UInt32
    /// Event-loop threads, each with its own listening socket (SO_REUSEPORT) and connections.
    public var threads: Int
    /// Largest request body kept; a larger one is cut to this size plus one byte, so a handler
    /// still sees that it was too large.
    public var maxRequestBodyBytes: Int

    public init(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSContext? = nil, maxConcurrentStreams: UInt32 = 1000,
        threads: Int = 2, maxRequestBodyBytes: Int = 64 * 1024
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.maxConcurrentStreams = maxConcurrentStreams
        self.threads = threads
        self.maxRequestBodyBytes = maxRequestBodyBytes
    }
}
