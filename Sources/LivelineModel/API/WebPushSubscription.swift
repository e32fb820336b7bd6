import Foundation

/// A browser's push subscription (`PushSubscription.toJSON()`): where to send and the keys to
/// encrypt for (RFC 8291).
public struct WebPushSubscription: Codable, Sendable, Hashable {
    public struct Keys: Codable, Sendable, Hashable {
        /// The browser's P-256 public key, base64url (65 bytes uncompressed).
        public var p256dh: String
        /// The 16-byte authentication secret, base64url.
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public var endpoint: String
    public var keys: Keys

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }

    /// The subscription as compact JSON with sorted keys: the stored form of a `web-push` token.
    public var canonicalJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding two strings cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
