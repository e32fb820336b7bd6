import Foundation

/// One push to a push service (RFC 8030 §5): the subscription's endpoint, the headers
/// (`TTL`, `Urgency`, `Topic`, `Content-Encoding`, `Authorization`) and the encrypted body.
public struct WebPushRequest: Sendable, Hashable {
    public let endpoint: String
    /// The endpoint's origin (`scheme://host[:port]`): the VAPID audience, and what the client
    /// shares connections by.
    public let origin: String
    /// In the order they are sent.
    public var headers: [Header]
    public var body: [UInt8]

    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `origin` nil: the endpoint's (or the endpoint itself, when it is not a URL with a host).
    public init(endpoint: String, origin: String? = nil, headers: [Header], body: [UInt8]) {
        self.endpoint = endpoint
        self.origin = origin ?? (try? VAPIDIdentity.origin(of: endpoint)) ?? endpoint
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (case-insensitive), if sent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A push service's answer to one ``WebPushRequest``.
public struct WebPushResponse: Sendable, Hashable {
    /// The HTTP status; 0 when there was no answer (``transportError`` says why).
    public var status: Int
    /// `Retry-After` in seconds (delta-seconds or an HTTP date), when the service sent one.
    public var retryAfter: TimeInterval?
    /// `Location`: the push message's resource (RFC 8030 §5).
    public var location: String?
    /// The start of the answer's body (a push service's reason), at most 512 bytes as text.
    public var body: String
    public var transportError: String?
    /// From the start of the request to the end of the answer.
    public var latency: Duration

    public init(
        status: Int, retryAfter: TimeInterval? = nil, location: String? = nil, body: String = "", transportError: String? = nil,
        latency: Duration = .zero
    ) {
        self.status = status
        self.retryAfter = retryAfter
        self.location = location
        self.body = body
        self.transportError = transportError
        self.latency = latency
    }
}

/// A web push could not be prepared or sent.
public struct WebPushError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What a caller may act on.
    public enum Code: Sendable, Hashable {
        case failed
        /// The subscription's `p256dh` is no uncompressed point on P-256 (or not even base64url):
        /// no push can ever be encrypted for it (RFC 8291 §3.1), so the subscription is of no use.
        case invalidKey
    }

    public let code: Code
    public let description: String
    public init(_ description: String, code: Code = .failed) {
        self.code = code
        self.description = description
    }
}
