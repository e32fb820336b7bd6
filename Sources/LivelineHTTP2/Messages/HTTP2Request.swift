/// A complete HTTP/2 request as a handler sees it.
public struct HTTP2Request: Sendable {
    public var method: String
    public var path: String
    public var authority: String?
    /// Regular header fields, names lower-case as HTTP/2 requires, in the order received.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The connection it came on: stable for the connection's life, never reused.
    public var connectionID: UInt64
    public var streamID: Int32

    public init(
        method: String, path: String, authority: String? = nil, headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], connectionID: UInt64 = 0, streamID: Int32 = 1
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
        self.streamID = streamID
    }

    /// The first value of header `name` (lower-case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// Every value of header `name` (a repeated header is a `DuplicateHeaders` error at APNs).
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }
}
