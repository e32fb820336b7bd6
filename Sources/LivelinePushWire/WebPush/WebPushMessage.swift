import Foundation
import LivelineCrypto
import LivelineModel

/// A web push as it goes to the push service: the payload encrypted for the subscription
/// (RFC 8291, `aes128gcm`), signed for this server (RFC 8292), with the RFC 8030 headers.
public enum WebPushMessage {
    /// `Urgency` values (RFC 8030 §5.3).
    public static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]
    /// The longest payload one 4096-byte `aes128gcm` record holds (RFC 8291 §4).
    public static let maximumPlaintext = WebPushPayload.maximumPlaintext
    /// How long a push service keeps a push for an offline browser by default (seconds).
    public static let defaultTTL = 86_400

    /// `Topic` (RFC 8030 §5.4): at most 32 characters of the URL-safe base64 alphabet.
    public static func isValidTopic(_ topic: String) -> Bool {
        !topic.isEmpty && topic.count <= 32
            && topic.unicodeScalars.allSatisfy {
                ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
    }

    /// The request carrying `payload` to `subscription`. Throws naming what is wrong with the
    /// subscription's keys, a payload too long for one record (``WebPushPayload/maximumPlaintext``)
    /// or a missing subject.
    public static func request(
        payload: [UInt8], to subscription: WebPushSubscription, ttl: Int, urgency: String, topic: String?, identity: VAPIDIdentity, now: Date
    ) throws -> WebPushRequest {
        try request(payload: payload, to: try Recipient(subscription), ttl: ttl, urgency: urgency, topic: topic, identity: identity, now: now)
    }

    /// A subscription read for sending: its keys decoded and its endpoint's origin, once for
    /// every push to it.
    public struct Recipient: Sendable {
        public let endpoint: String
        public let origin: String
        let p256dh: [UInt8]
        let auth: [UInt8]

        /// Throws a ``WebPushError`` naming what is wrong with the subscription's keys or endpoint;
        /// with ``WebPushError/Code/invalidKey`` when `p256dh` is no point on P-256 (registration
        /// checks its shape only: a pattern cannot tell a point) or not base64url.
        public init(_ subscription: WebPushSubscription) throws {
            guard let p256dh = Base64URL.decode(subscription.keys.p256dh) else {
                throw WebPushError("keys.p256dh is not base64url", code: .invalidKey)
            }
            do {
                _ = try ES256PublicKey(uncompressed: p256dh)
            } catch {
                throw WebPushError("keys.p256dh is not a P-256 public key: \(error.message)", code: .invalidKey)
            }
            guard let auth = Base64URL.decode(subscription.keys.auth), auth.count == 16 else {
                throw WebPushError("keys.auth is not a 16-byte secret in base64url")
            }
            self.endpoint = subscription.endpoint
            self.origin = try VAPIDIdentity.origin(of: subscription.endpoint)
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    /// ``request(payload:to:ttl:urgency:topic:identity:now:)`` to a subscription read before.
    public static func request(
        payload: [UInt8], to recipient: Recipient, ttl: Int, urgency: String, topic: String?, identity: VAPIDIdentity, now: Date
    ) throws -> WebPushRequest {
        // Checked here too (not only at the API): they become header lines.
        guard urgencies.contains(urgency) else { throw WebPushError("urgency must be very-low, low, normal or high") }
        if let topic, !isValidTopic(topic) { throw WebPushError("topic must be 1 to 32 characters of A-Z, a-z, 0-9, - and _") }
        let origin = recipient.origin
        let body: [UInt8]
        do {
            body = try WebPushPayload.encrypt(payload, toPoint: recipient.p256dh, authSecret: recipient.auth)
        } catch {
            guard error.code == .invalidKey else { throw error }
            throw WebPushError("keys.p256dh is not a P-256 public key: \(error)", code: .invalidKey)
        }
        var headers = [
            WebPushRequest.Header("TTL", String(max(0, ttl))),
            WebPushRequest.Header("Urgency", urgency),
            WebPushRequest.Header("Content-Encoding", "aes128gcm"),
            WebPushRequest.Header("Content-Type", "application/octet-stream"),
            WebPushRequest.Header("Authorization", try identity.authorization(origin: origin, now: now)),
        ]
        if let topic { headers.append(WebPushRequest.Header("Topic", topic)) }
        return WebPushRequest(endpoint: recipient.endpoint, origin: origin, headers: headers, body: body)
    }
}
