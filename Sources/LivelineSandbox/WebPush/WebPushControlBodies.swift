import Foundation
import LivelineCrypto
import LivelineModel

/// The JSON bodies of the Web Push service's control API (camelCase keys; binary values in
/// base64url; times in seconds since 1970). The routes are listed in docs/sandbox.md, "Web push service".
enum WebPushControlBodies {
    /// A new subscription: what `PushSubscription.toJSON()` gives, plus its ID and the browser's
    /// private key (the 32-byte d, base64url), so a peer can decrypt on its own.
    struct Subscription: Encodable {
        var id: String
        var endpoint: String
        var keys: WebPushSubscription.Keys
        var privateKey: String

        init(_ simulated: SimulatedSubscription) {
            id = simulated.id
            endpoint = simulated.subscription.endpoint
            keys = simulated.subscription.keys
            privateKey = Base64URL.encode(simulated.privateKey.rawPrivateKey)
        }
    }

    /// `{"aud", "sub", "exp", "k"}`: verified VAPID claims.
    struct Claims: Encodable {
        var aud: String
        var sub: String
        var exp: Int
        var k: String

        init(_ claims: VAPIDClaims) {
            aud = claims.audience
            sub = claims.subject
            exp = Int(claims.expiresAt.timeIntervalSince1970)
            k = Base64URL.encode(claims.publicKey)
        }
    }

    /// One received push; absent values are written as `null`.
    struct Push: Encodable {
        var push: ReceivedWebPush

        enum CodingKeys: String, CodingKey {
            case subscriptionId, receivedAt, status, ttl, urgency, topic, body, plaintext, vapid, authorization, refusal, detail
            case contentEncoding, location
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(push.subscriptionID, forKey: .subscriptionId)
            try container.encode(push.receivedAt.timeIntervalSince1970, forKey: .receivedAt)
            try container.encode(push.status, forKey: .status)
            try container.encode(push.ttl, forKey: .ttl)
            try container.encode(push.urgency, forKey: .urgency)
            try container.encode(push.topic, forKey: .topic)
            try container.encode(Base64URL.encode(push.body), forKey: .body)
            try container.encode(push.plaintext.map(Base64URL.encode), forKey: .plaintext)
            try container.encode(push.vapid.map(Claims.init), forKey: .vapid)
            try container.encode(push.authorization, forKey: .authorization)
            try container.encode(push.refusal, forKey: .refusal)
            try container.encode(push.detail, forKey: .detail)
            try container.encode(push.contentEncoding, forKey: .contentEncoding)
            try container.encode(push.location, forKey: .location)
        }
    }

    /// `{"status", "count", "retryAfter"?}`: arms a fault.
    struct Fault: Codable {
        var status: Int
        var count: Int
        var retryAfter: Int?
        /// Set in answers: the subscription it is armed for (null: any).
        var subscriptionId: String?
    }

    /// `GET /push-service`.
    struct Info: Encodable {
        var origin: String
        var port: Int
        var subscriptions: Int
        var pushes: Int
    }

    /// The answer of `DELETE /subscriptions/{id}`.
    struct Revoked: Encodable {
        var id: String
        var active = false
    }
}
