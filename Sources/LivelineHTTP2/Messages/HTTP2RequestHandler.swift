/// Serves the requests of an `HTTP2Server`.
public protocol HTTP2RequestHandler: Sendable {
    /// Answers `request` by calling `respond` exactly once, now or later, from any thread. A
    /// handler that never responds leaves the stream open until the connection closes.
    func handle(_ request: HTTP2Request, respond: @escaping @Sendable (HTTP2Response) -> Void)
    /// A connection ended (per-connection state can go).
    func connectionClosed(_ connectionID: UInt64)
}

extension HTTP2RequestHandler {
    public func connectionClosed(_ connectionID: UInt64) {}
}
