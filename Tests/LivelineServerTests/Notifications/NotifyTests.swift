import Foundation
import LivelineModel
import LivelineServer
import LivelineTestSupport
import Testing

/// Notify end to end (`docs/engine.md`, "Notify"): an inbox record and an alert push with the deep
/// link beside `aps`, once per dedupe key; resolve; the app's inbox.
@Suite struct NotifyTests {
    @Test func notifyingTwiceWithOneDedupeKeyMakesOneRecordAndOnePush() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let token = String(repeating: "a1", count: 32)
        setup.sandbox.registerDevice(token: token)
        #expect(
            try setup.server.request(
                "POST", "/api/apns/register", token: setup.bearer, json: #"{"kind":"alert","token":"\#(token)","device_id":"phone"}"#
            ).status == 200)

        let body =
            #"{"userId":\#(setup.userID),"title":"Kochen heute?","body":"Anna schlägt Pasta vor","link":"/cook-suggest/cs_7","icon":"🍝","dedupeKey":"cook:7:invite"}"#
        let first = try setup.admin("POST", "/v1/notify", json: body)
        #expect(first.status == 201, "\(first.text)")
        #expect(first.json?["created"] as? Bool == true && (first.json?["queued"] as? [String: Int]) == ["alert": 1, "web-push": 0])
        let second = try setup.admin("POST", "/v1/notify", json: body)
        #expect(second.status == 200 && second.json?["created"] as? Bool == false)
        #expect(second.json?["id"] as? Int == first.json?["id"] as? Int)

        #expect(await eventually { setup.sandbox.accepted(token: token).count == 1 })
        // Drained: whatever the two notifies enqueued has been sent (a second push would be here now).
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let pushes = setup.sandbox.accepted(token: token)
        #expect(pushes.count == 1)
        #expect(pushes.first?.topic == "dev.liveline.demo" && pushes.first?.pushType == "alert")
        // The record's id as collapse id: sent again after a crash, it shows as one notification.
        #expect(pushes.first?.collapseID == "notify:\(first.json?["id"] as? Int ?? -1)")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(pushes[0].payload)) as? [String: Any])
        #expect(payload["link"] as? String == "/cook-suggest/cs_7")
        #expect(((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? String == "Kochen heute?")

        let inbox = try setup.server.request("GET", "/api/notifications", token: setup.bearer)
        let items = try #require(inbox.json?["notifications"] as? [[String: Any]])
        #expect(items.count == 1 && items[0]["resolved"] as? Bool == false && items[0]["read"] as? Bool == false)

        let resolved = try setup.admin("POST", "/v1/notify/resolve", json: #"{"userId":\#(setup.userID),"dedupeKey":"cook:7:invite"}"#)
        #expect(resolved.status == 200 && resolved.json?["resolved"] as? Bool == true)
        let id = try #require(items[0]["id"] as? Int)
        #expect(try setup.server.request("POST", "/api/notifications/\(id)/read", token: setup.bearer).json?["read"] as? Bool == true)
        let after = try setup.server.request("GET", "/api/notifications", token: setup.bearer).json?["notifications"] as? [[String: Any]]
        #expect(after?.first?["resolved"] as? Bool == true && after?.first?["read"] as? Bool == true)
        #expect(try setup.server.app.store.notifications.notification(userID: setup.userID, dedupeKey: "cook:7:invite")?.resolved == true)
    }

    @Test func theInboxIsPrivateAndBadInputIsRefused() throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let (other, otherBearer) = try setup.server.addUser(household: "Other", name: "Olga")
        let created = try setup.admin("POST", "/v1/notify", json: #"{"userId":\#(other.id),"title":"Hi","dedupeKey":"k"}"#)
        let id = try #require(created.json?["id"] as? Int)
        #expect(created.json?["queued"] as? [String: Int] == ["alert": 0, "web-push": 0], "no alert token, no browser: the inbox only")
        #expect(try setup.server.request("POST", "/api/notifications/\(id)/read", token: setup.bearer).status == 404)
        #expect((try setup.server.request("GET", "/api/notifications", token: setup.bearer).json?["notifications"] as? [Any])?.isEmpty == true)
        #expect((try setup.server.request("GET", "/api/notifications", token: otherBearer).json?["notifications"] as? [Any])?.count == 1)

        for (body, field) in [
            (#"{"userId":\#(other.id),"title":"","dedupeKey":"k2"}"#, "title"),
            (#"{"userId":\#(other.id),"title":"T","dedupeKey":""}"#, "dedupeKey"),
            (#"{"userId":\#(other.id),"title":"T","dedupeKey":"k3","link":"not a url"}"#, "link"),
            (#"{"title":"T","dedupeKey":"k4"}"#, "userId"),
            (#"{"userId":\#(other.id),"title":"T","dedupeKey":"k5","topic":"\#(String(repeating: "t", count: 33))"}"#, "topic"),
            (#"{"userId":\#(other.id),"title":"T","dedupeKey":"k6","topic":"not/url+safe"}"#, "topic"),
            (#"{"userId":\#(other.id),"title":"T","dedupeKey":"k7","urgency":"urgent"}"#, "urgency"),
            (#"{"userId":\#(other.id),"title":"T","dedupeKey":"k8","ttl":-1}"#, "ttl"),
        ] {
            let response = try setup.admin("POST", "/v1/notify", json: body)
            #expect(response.status == 400 && response.errorField == field, "\(body): \(response.text)")
        }
        #expect(try setup.admin("POST", "/v1/notify", json: #"{"userId":424242,"title":"T","dedupeKey":"k"}"#).status == 404)
        #expect(try setup.admin("POST", "/v1/notify/resolve", json: #"{"userId":\#(other.id),"dedupeKey":"nope"}"#).status == 404)
        #expect(try setup.server.app.store.notifications.notifications(userID: other.id).count == 1, "nothing stored by bad input")
    }

    /// A link is an app path, the form the server's own invitation sends (`/cook-suggest/{id}`);
    /// a URL with a scheme, or `//host` (another host to a browser), is a 400 that says the rule.
    @Test func aLinkIsAnAppPathAndNothingElse() throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        for link in ["/cook-suggest/cs_4kq2m0v8x1", "/shopping/2026-01-05?from=notify#top", "/"] {
            let body = #"{"userId":\#(setup.userID),"title":"T","dedupeKey":"\#(link)","link":"\#(link)"}"#
            let response = try setup.admin("POST", "/v1/notify", json: body)
            #expect(response.status == 201, "\(link): \(response.text)")
        }
        for link in ["liveline://cook-suggest/cs_4kq2m0v8x1", "https://example.com/cook-suggest/cs_1", "//example.com/x", "cook-suggest/cs_1"] {
            let body = #"{"userId":\#(setup.userID),"title":"T","dedupeKey":"\#(link)","link":"\#(link)"}"#
            let response = try setup.admin("POST", "/v1/notify", json: body)
            #expect(response.status == 400 && response.errorField == "link", "\(link): \(response.text)")
            let message = (response.json?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.hasPrefix("link must be the deep link: an app path (RFC 3986 path-absolute") && message.contains("not //host, no scheme"))
        }
        #expect(try setup.server.app.store.notifications.notifications(userID: setup.userID).count == 3, "nothing stored by a refused link")
    }
}
