import Foundation
import LivelineCrypto
import LivelineTestSupport
import Testing
@testable import LivelineSandbox

/// An application server for tests: encrypts to a subscription (RFC 8291), signs VAPID tokens
/// (RFC 8292) and POSTs pushes over a plain HTTP/1.1 connection.
struct WebPushSender {
    static let subject = "mailto:ops@example.com"

    let service: WebPushService
    let vapidKey: ES256PrivateKey

    init(_ service: WebPushService) throws {
        self.service = service
        vapidKey = try ES256PrivateKey.generate()
    }

    /// `vapid t=…, k=…` for `audience` (default: the service's origin), valid for `lifetime`
    /// seconds from the service clock's now.
    func authorization(audience: String? = nil, lifetime: TimeInterval = 3600, key: ES256PrivateKey? = nil) throws -> String {
        try VAPID.authorization(
            audience: audience ?? service.origin, subject: Self.subject, expiresAt: service.clock().addingTimeInterval(lifetime),
            key: key ?? vapidKey)
    }

    /// `plaintext` encrypted for `subscription`.
    func encrypt(_ plaintext: String, for subscription: SimulatedSubscription) throws -> [UInt8] {
        let keys = subscription.subscription.keys
        let userAgentKey = try ES256PublicKey(uncompressed: try #require(Base64URL.decode(keys.p256dh)))
        return try WebPushPayload.encrypt(Array(plaintext.utf8), to: userAgentKey, authSecret: try #require(Base64URL.decode(keys.auth)))
    }

    /// The headers of a valid push, with `changes` applied (a nil value removes the header).
    func headers(_ changes: [String: String?] = [:]) throws -> [String: String] {
        var headers = [
            "Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream", "TTL": "60",
            "Authorization": try authorization(),
        ]
        for (name, value) in changes { headers[name] = value }
        return headers
    }

    /// POSTs `plaintext` encrypted for `subscription` (or `body` as given) to its endpoint (or
    /// `path` on the service's port).
    func send(
        _ plaintext: String = #"{"title":"Milk is on the list"}"#, to subscription: SimulatedSubscription, _ changes: [String: String?] = [:],
        body: [UInt8]? = nil, path: String? = nil
    ) throws -> TestHTTPConnection.Response {
        let endpoint = try #require(URL(string: subscription.subscription.endpoint))
        let connection = try TestHTTPConnection(port: try #require(endpoint.port))
        return try connection.request(
            "POST", path ?? endpoint.path, headers: try headers(changes), body: try body ?? encrypt(plaintext, for: subscription))
    }
}

extension TestHTTPConnection.Response {
    /// `reason` of a Web Push refusal body.
    var reason: String? { json?["reason"] as? String }
}
