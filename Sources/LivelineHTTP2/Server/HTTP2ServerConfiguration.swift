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
    /// Whether response header fields (other than `:status`) may enter the HPACK tables, which
    /// pays when responses repeat values. False for responses whose values are new every time
    /// (request IDs): each field is then sent as a never-indexed literal (RFC 7541 §6.2.3), which
    /// spares the work of inserting it into the table and evicting it again a few responses later.
    public var indexesResponseHeaders: Bool

    public init(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSContext? = nil, maxConcurrentStreams: UInt32 = 1000,
        threads: Int = 2, maxRequestBodyBytes: Int = 64 * 1024, indexesResponseHeaders: Bool = true
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.maxConcurrentStreams = maxConcurrentStreams
        self.threads = threads
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.indexesResponseHeaders = indexesResponseHeaders
    }
}
