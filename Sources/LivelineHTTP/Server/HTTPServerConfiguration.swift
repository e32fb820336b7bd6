/// How the HTTP server listens and what it accepts.
public struct HTTPServerConfiguration: Sendable {
    /// IPv4 address to bind; `0.0.0.0` listens on every interface.
    public var host: String
    /// TCP port; 0 picks a free one (read it from `HTTPServer.port` after `start()`).
    public var port: Int
    /// Worker threads (libmicrohttpd's thread pool, each with its own epoll set).
    public var threads: Int
    /// Largest request body accepted; a larger one is answered 413.
    public var maxBodyBytes: Int
    /// Largest request line plus header fields accepted (as libmicrohttpd counts them, the blank
    /// line included); a larger one is answered 431 `headersTooLarge`. libmicrohttpd is given
    /// four times this per connection, so that headers up to about that size reach the check
    /// and get the JSON error (beyond it the library answers 431 itself, in HTML: see
    /// `HTTPServer+ProtocolErrors.swift`).
    public var maxHeaderBytes: Int
    /// Longest request target (path and query, as sent) accepted; a longer one is answered 414
    /// `uriTooLong`.
    public var maxTargetBytes: Int
    /// A connection idle this long (no request bytes) is closed; also bounds slow requests.
    public var connectionTimeoutSeconds: Int
    /// Most connections open at once.
    public var connectionLimit: Int
    /// Seconds between keep-alive comments on open event streams (0: none).
    public var eventStreamKeepAliveSeconds: Double
    /// Whether a request body must be declared JSON (`Content-Type: application/json` or
    /// `…+json`), else 415. Off for a server whose handlers read other bodies themselves, such as
    /// the sandbox's Web Push service (`aes128gcm` bodies, RFC 8291).
    public var requiresJSONBodies: Bool
    /// Paths under these prefixes may also send HTML forms' bodies
    /// (`application/x-www-form-urlencoded`): the dashboard's forms.
    public var formPathPrefixes: [String]

    public init(
        host: String = "0.0.0.0", port: Int = 8080, threads: Int = 2, maxBodyBytes: Int = 1 << 20,
        maxHeaderBytes: Int = 16 << 10, maxTargetBytes: Int = 8 << 10,
        connectionTimeoutSeconds: Int = 30, connectionLimit: Int = 4096, eventStreamKeepAliveSeconds: Double = 15,
        requiresJSONBodies: Bool = true, formPathPrefixes: [String] = []
    ) {
        self.formPathPrefixes = formPathPrefixes
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxTargetBytes = maxTargetBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionLimit = connectionLimit
        self.eventStreamKeepAliveSeconds = eventStreamKeepAliveSeconds
        self.requiresJSONBodies = requiresJSONBodies
    }
}
