import LivelineCrypto
import LivelineModel

/// A simulated browser's push subscription: what the browser keeps (its P-256 key pair and auth
/// secret) and what it hands the web app (`PushSubscription.toJSON()`, RFC 8291 §2).
public struct SimulatedSubscription: Sendable {
    /// The last path segment of the endpoint, `\(origin)/push/<id>`.
    public let id: String
    /// The endpoint and the keys `p256dh` (the public key, 65 bytes uncompressed) and `auth`, in
    /// base64url.
    public let subscription: WebPushSubscription
    /// The browser's private key; pushes to the subscription decrypt with it (RFC 8291 §3.1).
    public let privateKey: ES256PrivateKey
    /// The 16-byte authentication secret (RFC 8291 §3.2).
    public let authSecret: [UInt8]

    public init(id: String, subscription: WebPushSubscription, privateKey: ES256PrivateKey, authSecret: [UInt8]) {
        self.id = id
        self.subscription = subscription
        self.privateKey = privateKey
        self.authSecret = authSecret
    }
}
