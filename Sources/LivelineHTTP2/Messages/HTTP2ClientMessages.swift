/// A request an `HTTP2ClientConnection` sends.
public struct HTTP2ClientRequest: Sendable {
    public var method: String
    public var path: String
    /// `:authority`; the connection's host when nil.
    public var authority: String?
    /// Regular header fields (lower-case names).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// When set, the request is not put on the wire after this instant (it waited for a
    /// connection too long): it fails as `.notProcessed` instead, never sent.
    public var notAfter: ContinuousClock.Instant?

    public init(
        method: String = "POST", path: String, authority: String? = nil, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        notAfter: ContinuousClock.Instant? = nil
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.notAfter = notAfter
    }
}

/// A response as received.
public struct HTTP2ClientResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whether the server sent any DATA frame (APNs' 200 is HEADERS with END_STREAM only).
    public var hadDataFrames: Bool

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], hadDataFrames: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.hadDataFrames = hadDataFrames
    }

    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

/// Why a request got no response; says whether the server can have processed it.
public struct HTTP2ClientFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The server cannot have processed it (refused stream, above a GOAWAY's last stream,
        /// never sent): safe to send again as it is.
        case notProcessed
        /// The connection died with the request in flight: it may or may not have been processed.
        case connectionLost
        /// The stream was reset with an HTTP/2 error code.
        case streamReset(UInt32)
        /// No connection could be made.
        case connectFailed
    }

    public var kind: Kind
    public var message: String
    /// A GOAWAY's debug data, e.g. APNs' `{"reason":"Shutdown"}`.
    public var goAwayDebugData: [UInt8]?

    public init(kind: Kind, message: String, goAwayDebugData: [UInt8]? = nil) {
        self.kind = kind
        self.message = message
        self.goAwayDebugData = goAwayDebugData
    }

    public var description: String { message }
}
