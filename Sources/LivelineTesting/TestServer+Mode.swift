extension TestServer {
    /// How a test reaches its server: through the router and handlers without a socket, or over
    /// HTTP on a free port (docs/architecture.md, "Tests").
    public enum Mode: Sendable {
        /// No listener: ``TestServer/request(_:_:token:json:)`` and ``TestServer/admin(_:_:json:)``
        /// answer in the calling thread through what the HTTP server runs between reading a request
        /// and writing its answer (``Application/respond(to:)``). For the tests of what the server
        /// decides; the default.
        case inProcess
        /// HTTP on a free port of 127.0.0.1, with ``TestServer/port`` and
        /// ``TestServer/connection()``: for what must cross the wire (raw connections, keep-alive,
        /// libmicrohttpd's header fields and answers, event streams, browsers, the SDK's
        /// `URLSession`, simulated phones and child processes that connect over HTTP).
        case live
    }
}
