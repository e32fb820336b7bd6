import Foundation
import LivelineCrypto

/// One push request the Web Push service received (`POST /push/<id>`), accepted or refused, as it
/// arrived and as it was answered.
public struct ReceivedWebPush: Sendable {
    public let subscriptionID: String
    /// The service clock's time when it arrived.
    public let receivedAt: Date
    /// What the service answered: 201, or the status of the refusal.
    public let status: Int
    /// The `TTL` header when it is a non-negative integer (RFC 8030 §5.2).
    public let ttl: Int?
    /// The `Urgency` header as sent (RFC 8030 §5.3).
    public let urgency: String?
    /// The `Topic` header as sent (RFC 8030 §5.4).
    public let topic: String?
    /// The encrypted body as received.
    public let body: [UInt8]
    /// The body decrypted with the subscription's key and auth secret (RFC 8291), whatever else
    /// was refused; nil when it does not decrypt or the subscription is unknown.
    public let plaintext: [UInt8]?
    /// The claims of the `Authorization` header when it verifies (RFC 8292), whatever else was
    /// refused; nil when it is missing or refused.
    public let vapid: VAPIDClaims?
    /// The raw `Authorization` header.
    public let authorization: String?
    /// The `reason` answered when it was refused (`BadTtl`, `BadJwtToken`, …); nil for a 201.
    public let refusal: String?
    /// What exactly was wrong, for a person (e.g. which VAPID check failed); nil for a 201.
    public let detail: String?
    /// The `Content-Encoding` header as sent.
    public let contentEncoding: String?
    /// The `Location` answered with a 201 (`/message/<n>`).
    public let location: String?

    public init(
        subscriptionID: String, receivedAt: Date, status: Int, ttl: Int?, urgency: String?, topic: String?, body: [UInt8],
        plaintext: [UInt8]?, vapid: VAPIDClaims?, authorization: String?, refusal: String?, detail: String? = nil,
        contentEncoding: String? = nil, location: String? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.receivedAt = receivedAt
        self.status = status
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
        self.body = body
        self.plaintext = plaintext
        self.vapid = vapid
        self.authorization = authorization
        self.refusal = refusal
        self.detail = detail
        self.contentEncoding = contentEncoding
        self.location = location
    }

    /// The plaintext as text (what a service worker's `event.data.text()` gives), when there is one.
    public var plaintextText: String? { plaintext.map { String(decoding: $0, as: UTF8.self) } }
}
