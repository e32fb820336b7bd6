import Foundation
import LivelineCrypto
import LivelineTestSupport
import Testing
@testable import LivelineSandbox

/// The Web Push service's JSON control API, as a process outside Swift would use it: it makes
/// subscriptions, reports pushes as the Swift API does, arms faults and revokes subscriptions.
@Suite struct WebPushControlAPITests {
    func call(_ service: WebPushService, _ method: String, _ path: String, _ body: String? = nil) throws -> TestHTTPConnection.Response {
        try TestHTTPConnection(port: service.port).request(method, path, headers: ["Connection": "close"], body: body.map { Array($0.utf8) })
    }

    /// The response body as a JSON array of objects.
    func array(_ response: TestHTTPConnection.Response) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]], "\(response.text)")
    }

    @Test func aSubscriptionMadeOverHTTPHasTheKeysTheServiceDecryptsWith() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let created = try call(service, "POST", "/subscriptions")
        #expect(created.status == 201)
        let json = try #require(created.json)
        let id = try #require(json["id"] as? String)
        let simulated = try #require(service.subscription(id))
        let keys = try #require(json["keys"] as? [String: String])
        #expect(json["endpoint"] as? String == "\(service.origin)/push/\(id)")
        #expect(keys["p256dh"] == simulated.subscription.keys.p256dh && keys["auth"] == simulated.subscription.keys.auth)
        // A peer rebuilds the browser's key from privateKey: it is the key of p256dh.
        let privateKey = try #require(json["privateKey"] as? String)
        let raw = try #require(Base64URL.decode(privateKey))
        #expect(raw.count == 32 && raw == simulated.privateKey.rawPrivateKey)
        #expect(Base64URL.encode(try ES256PrivateKey(rawPrivateKey: raw).publicKey.uncompressed) == keys["p256dh"])
    }

    @Test func pushesAreReportedAsTheSwiftAPIReportsThem() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let created = try call(service, "POST", "/subscriptions")
        let id = try #require(created.json?["id"] as? String)
        let browser = try #require(service.subscription(id))
        #expect(try sender.send("hello", to: browser, ["Urgency": "low", "Topic": "t1"]).status == 201)
        #expect(try sender.send(to: browser, ["Authorization": nil]).status == 403)

        let reported = try array(try call(service, "GET", "/subscriptions/\(browser.id)/pushes"))
        let recorded = service.pushes(subscriptionID: browser.id)
        #expect(reported.count == 2 && recorded.count == 2)
        for (json, push) in zip(reported, recorded) {
            #expect(json["subscriptionId"] as? String == push.subscriptionID)
            #expect((json["receivedAt"] as? Double).map { abs($0 - push.receivedAt.timeIntervalSince1970) < 0.001 } == true)
            #expect(json["status"] as? Int == push.status)
            #expect(json["ttl"] as? Int == push.ttl)
            #expect(json["body"] as? String == Base64URL.encode(push.body))
            #expect(json["plaintext"] as? String == push.plaintext.map(Base64URL.encode))
            #expect(json["authorization"] as? String == push.authorization)
            #expect(json["refusal"] as? String == push.refusal)
            #expect(json["location"] as? String == push.location)
        }
        let accepted = reported[0]
        #expect(accepted["urgency"] as? String == "low" && accepted["topic"] as? String == "t1")
        #expect((accepted["plaintext"] as? String).flatMap(Base64URL.decode) == Array("hello".utf8))
        let vapid = try #require(accepted["vapid"] as? [String: Any])
        let claims = try #require(recorded[0].vapid)
        #expect(vapid["aud"] as? String == service.origin && vapid["sub"] as? String == WebPushSender.subject)
        #expect(vapid["exp"] as? Int == Int(claims.expiresAt.timeIntervalSince1970))
        #expect(vapid["k"] as? String == Base64URL.encode(sender.vapidKey.publicKey.uncompressed))
        // Absent values are null, not missing.
        let refused = reported[1]
        #expect(refused["refusal"] as? String == "BadJwtToken")
        for key in ["vapid", "authorization", "urgency", "topic", "location"] {
            #expect(refused[key] is NSNull, "\(key) is null")
        }
        #expect(try array(try call(service, "GET", "/pushes")).count == service.allPushes.count)
        #expect(try call(service, "GET", "/push-service").json?["origin"] as? String == service.origin)
    }

    @Test func faultsAndRevocationsAreArmedOverHTTP() throws {
        let service = try WebPushService.start()
        defer { service.stop() }
        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        let armed = try call(service, "POST", "/subscriptions/\(browser.id)/faults", #"{"status":500,"count":1,"retryAfter":5}"#)
        #expect(armed.status == 201 && armed.json?["subscriptionId"] as? String == browser.id)
        let failed = try sender.send(to: browser)
        #expect(failed.status == 500 && failed.reason == "InternalServerError" && failed.headers["retry-after"] == "5")
        #expect(try call(service, "POST", "/faults", #"{"status":404,"count":1}"#).status == 201)
        #expect(try sender.send(to: browser).reason == "BadPath")
        #expect(try sender.send(to: browser).status == 201)
        #expect(try call(service, "POST", "/faults", #"{"status":200,"count":1}"#).status == 400)
        #expect(try call(service, "POST", "/faults", #"{"status":500,"count":0}"#).status == 400)
        #expect(try call(service, "POST", "/subscriptions/nobody/faults", #"{"status":500,"count":1}"#).status == 404)

        #expect(try call(service, "DELETE", "/subscriptions/\(browser.id)").status == 200)
        #expect(try sender.send(to: browser).status == 410)
        #expect(try call(service, "DELETE", "/subscriptions/nobody").status == 404)
        #expect(try call(service, "GET", "/subscriptions/nobody/pushes").status == 404)
        #expect(try array(try call(service, "GET", "/subscriptions/\(browser.id)/pushes")).map { $0["status"] as? Int } == [500, 404, 201, 410])
    }
}
