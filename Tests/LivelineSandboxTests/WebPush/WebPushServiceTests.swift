import Foundation
import LivelineCrypto
import LivelineTestSupport
import Testing
@testable import LivelineSandbox

/// The Web Push service over real HTTP/1.1: what it accepts, what it refuses and why, and what it
/// records of each push.
@Suite struct WebPushServiceTests {
    @Test func anEncryptedSignedPushIs201AndRecordedWithItsPlaintextAndClaims() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        #expect(browser.subscription.endpoint == "\(service.origin)/push/\(browser.id)")
        #expect(service.origin == "http://127.0.0.1:\(service.port)")
        #expect(Base64URL.decode(browser.subscription.keys.p256dh) == browser.privateKey.publicKey.uncompressed)
        #expect(Base64URL.decode(browser.subscription.keys.auth) == browser.authSecret && browser.authSecret.count == 16)

        let authorization = try sender.authorization()
        let body = try sender.encrypt(#"{"title":"Milk"}"#, for: browser)
        let response = try sender.send(
            to: browser, ["Authorization": authorization, "Urgency": "high", "Topic": "shopping_list-1", "TTL": "3600"], body: body)
        #expect(response.status == 201)
        #expect(response.headers["location"] == "/message/1")
        #expect(try sender.send(to: browser).headers["location"] == "/message/2")

        let pushes = service.pushes(subscriptionID: browser.id)
        #expect(pushes.count == 2)
        let push = try #require(pushes.first)
        #expect(push.status == 201 && push.refusal == nil && push.location == "/message/1")
        #expect(push.plaintextText == #"{"title":"Milk"}"#)
        #expect(push.body == body)
        #expect(push.ttl == 3600 && push.urgency == "high" && push.topic == "shopping_list-1")
        #expect(push.authorization == authorization)
        let claims = try #require(push.vapid)
        #expect(claims.audience == service.origin && claims.subject == WebPushSender.subject)
        #expect(claims.publicKey == sender.vapidKey.publicKey.uncompressed)
        #expect(abs(push.receivedAt.timeIntervalSinceNow) < 60)
        #expect(service.allPushes.count == 2)
    }

    /// One way to get a push wrong, and what the service answers.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var reason: String
        /// Whether the VAPID token is the one refused (so no claims are recorded).
        var vapidRefused = false
        var changes: @Sendable (WebPushSender, SimulatedSubscription) throws -> (headers: [String: String?], body: [UInt8]?)

        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "a body over 4096 bytes", status: 413, reason: "PayloadTooLarge") { _, _ in
            ([:], [UInt8](repeating: 7, count: 4097))
        },
        Refusal(name: "Content-Encoding aesgcm", status: 400, reason: "BadWebPushRequest") { _, _ in (["Content-Encoding": "aesgcm"], nil) },
        Refusal(name: "no Content-Encoding", status: 400, reason: "BadWebPushRequest") { _, _ in (["Content-Encoding": nil], nil) },
        Refusal(name: "no TTL", status: 400, reason: "BadTtl") { _, _ in (["TTL": nil], nil) },
        Refusal(name: "a negative TTL", status: 400, reason: "BadTtl") { _, _ in (["TTL": "-1"], nil) },
        Refusal(name: "a TTL that is not a number", status: 400, reason: "BadTtl") { _, _ in (["TTL": "1.5"], nil) },
        Refusal(name: "Urgency urgent", status: 400, reason: "BadUrgency") { _, _ in (["Urgency": "urgent"], nil) },
        Refusal(name: "a Topic with a space", status: 400, reason: "BadWebPushTopic") { _, _ in (["Topic": "shopping list"], nil) },
        Refusal(name: "a Topic of 33 characters", status: 400, reason: "BadWebPushTopic") { _, _ in
            (["Topic": String(repeating: "a", count: 33)], nil)
        },
        Refusal(name: "no Authorization", status: 403, reason: "BadJwtToken", vapidRefused: true) { _, _ in (["Authorization": nil], nil) },
        Refusal(name: "a bearer Authorization", status: 403, reason: "BadJwtToken", vapidRefused: true) { _, _ in
            (["Authorization": "bearer abc.def.ghi"], nil)
        },
        Refusal(name: "an aud of another push service", status: 403, reason: "BadJwtToken", vapidRefused: true) { sender, _ in
            (["Authorization": try sender.authorization(audience: "https://web.push.apple.com")], nil)
        },
        Refusal(name: "an expired exp", status: 403, reason: "BadJwtToken", vapidRefused: true) { sender, _ in
            (["Authorization": try sender.authorization(lifetime: -60)], nil)
        },
        Refusal(name: "an exp more than 24 hours ahead", status: 403, reason: "BadJwtToken", vapidRefused: true) { sender, _ in
            (["Authorization": try sender.authorization(lifetime: 25 * 3600)], nil)
        },
        Refusal(name: "a k of another key", status: 403, reason: "BadJwtToken", vapidRefused: true) { sender, _ in
            let other = Base64URL.encode(try ES256PrivateKey.generate().publicKey.uncompressed)
            return (["Authorization": try replacingK(of: try sender.authorization(), with: other)], nil)
        },
        Refusal(name: "a k that is not a key", status: 403, reason: "BadVapidPublicKey", vapidRefused: true) { sender, _ in
            let short = Base64URL.encode([UInt8](repeating: 4, count: 33))
            return (["Authorization": try replacingK(of: try sender.authorization(), with: short)], nil)
        },
        Refusal(name: "a body encrypted for another subscription", status: 400, reason: "BadWebPushRequest") { sender, _ in
            ([:], try sender.encrypt("for someone else", for: try sender.service.subscribe()))
        },
    ]

    /// `vapid t=…, k=…` with another `k`.
    static func replacingK(of authorization: String, with key: String) throws -> String {
        String(authorization[..<(try #require(authorization.range(of: "k="))).upperBound]) + key
    }

    @Test(arguments: refusals) func aBadPushIsRefusedWithApplesReasonAndRecorded(_ refusal: Refusal) throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        let (headers, body) = try refusal.changes(sender, browser)

        let response = try sender.send(to: browser, headers, body: body)
        #expect(response.status == refusal.status)
        #expect(response.reason == refusal.reason, "\(response.text)")
        #expect(response.headers["location"] == nil)
        let push = try #require(service.pushes(subscriptionID: browser.id).last)
        #expect(push.status == refusal.status && push.refusal == refusal.reason && push.location == nil)
        #expect(push.detail?.isEmpty == false)
        #expect((push.vapid == nil) == refusal.vapidRefused)
        // The same push, done right, is accepted: the refusal came from the one thing changed.
        #expect(try sender.send(to: browser).status == 201)
    }

    @Test func theChecksRunInTheirOrder() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        let wrongKey = try sender.encrypt("x", for: try service.subscribe())
        let expired = try sender.authorization(lifetime: -60)
        // Each case breaks everything from one check on; the first broken check answers.
        let cases: [(headers: [String: String?], body: [UInt8]?, reason: String)] = [
            (["Content-Encoding": "aesgcm", "TTL": nil, "Authorization": expired], [UInt8](repeating: 1, count: 5000), "PayloadTooLarge"),
            (["Content-Encoding": "aesgcm", "TTL": nil, "Urgency": "x", "Authorization": expired], wrongKey, "BadWebPushRequest"),
            (["TTL": "soon", "Urgency": "x", "Topic": "a b", "Authorization": expired], wrongKey, "BadTtl"),
            (["Urgency": "x", "Topic": "a b", "Authorization": expired], wrongKey, "BadUrgency"),
            (["Topic": "a b", "Authorization": expired], wrongKey, "BadWebPushTopic"),
            (["Authorization": expired], wrongKey, "BadJwtToken"),
        ]
        for (headers, body, reason) in cases {
            #expect(try sender.send(to: browser, headers, body: body).reason == reason)
        }
        service.unsubscribe(browser.id)
        #expect(try sender.send(to: browser, ["TTL": nil], body: wrongKey).reason == "Unregistered", "410 comes before the checks")
    }

    @Test func aFaultArmedForTwoPushesAnswers429WithRetryAfterTwiceThen201() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        let other = try service.subscribe()
        service.failNext(subscriptionID: browser.id, count: 2, status: 429, retryAfter: 30)

        #expect(try sender.send(to: other).status == 201, "armed for another subscription")
        for _ in 0..<2 {
            let refused = try sender.send(to: browser)
            #expect(refused.status == 429 && refused.reason == "TooManyRequests" && refused.headers["retry-after"] == "30")
        }
        let accepted = try sender.send(to: browser)
        #expect(accepted.status == 201 && accepted.headers["retry-after"] == nil)
        let recorded = service.pushes(subscriptionID: browser.id)
        #expect(recorded.map(\.status) == [429, 429, 201])
        #expect(recorded.map(\.refusal) == ["TooManyRequests", "TooManyRequests", nil])
        #expect(recorded.first?.plaintextText == #"{"title":"Milk is on the list"}"#, "a faulted push is still decrypted for the record")

        service.failNext(subscriptionID: nil, count: 1, status: 503)
        let unavailable = try sender.send(to: other)
        #expect(unavailable.status == 503 && unavailable.reason == "ServiceUnavailable" && unavailable.headers["retry-after"] == nil)
        #expect(try sender.send(to: browser).status == 201, "a fault for any subscription is used up by the first push")
    }

    @Test func anUnsubscribedSubscriptionIs410AndAnUnknownOne404() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        #expect(try sender.send(to: browser).status == 201)
        service.unsubscribe(browser.id)
        let gone = try sender.send(to: browser)
        #expect(gone.status == 410 && gone.reason == "Unregistered")
        #expect(service.pushes(subscriptionID: browser.id).map(\.status) == [201, 410])

        let unknown = try sender.send(to: browser, path: "/push/nobody")
        #expect(unknown.status == 404 && unknown.reason == "BadPath")
        let recorded = try #require(service.allPushes.last)
        #expect(recorded.subscriptionID == "nobody" && recorded.status == 404 && recorded.plaintext == nil)
    }
}
