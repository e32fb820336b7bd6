/// What a handler answers on a stream, and what becomes of the connection afterwards.
public struct HTTP2Response: Sendable {
    /// What to do with the connection once the response is queued.
    public enum Then: Sendable, Hashable {
        case keepOpen
        /// Send GOAWAY (with an HTTP/2 error code and debug data, e.g. `{"reason":"Shutdown"}`) whose
        /// last-stream-id is this response's stream, then close.
        case goAway(errorCode: UInt32, debugData: [UInt8])
        /// Close the TCP connection at once, like a dropped connection.
        case drop
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    /// nil sends HEADERS with END_STREAM and no DATA frame (APNs' 200).
    public var body: [UInt8]?
    public var then: Then

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, then: Then = .keepOpen) {
        self.status = status
        self.headers = headers
        self.body = body
        self.then = then
    }
}
