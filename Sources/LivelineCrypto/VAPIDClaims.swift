import Foundation

/// What a verified VAPID `Authorization` header says (RFC 8292 §2–3): who signed it for which push
/// service, until when, and how to reach them.
public struct VAPIDClaims: Sendable, Hashable {
    /// The `aud` claim: the origin of the push service the token is for.
    public var audience: String
    /// The `sub` claim: the application server's contact, a `mailto:` or `https:` URI.
    public var subject: String
    /// The `exp` claim.
    public var expiresAt: Date
    /// The `k` parameter: the application server's 65-byte uncompressed P-256 public key, the one
    /// a subscription may be restricted to (`applicationServerKey`, RFC 8292 §4).
    public var publicKey: [UInt8]

    public init(audience: String, subject: String, expiresAt: Date, publicKey: [UInt8]) {
        self.audience = audience
        self.subject = subject
        self.expiresAt = expiresAt
        self.publicKey = publicKey
    }
}
