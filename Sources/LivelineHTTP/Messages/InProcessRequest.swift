/// One request handed to the server without a socket (``HTTPServer/respond(to:)``): what a client
/// would send, already framed.
public struct InProcessRequest: Sendable {
    /// The method as sent (`GET`, `POST`, …).
    public var method: String
    /// The request target as sent: the path and any query, percent-encoded.
    public var target: String
    /// The header fields as sent (`Host` and `Content-Length` too, when the request should look
    /// like one that came over a connection).
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The address the request stands for, as a connection's would be (IPv4 dotted or IPv6).
    public var clientAddress: String?

    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], clientAddress: String? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }
}
