import Foundation
import LivelineCookSuggestModel
import LivelineCrypto
import LivelineModel
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

/// Meal planning through the HTTP API (`docs/features/cook-suggest.md`): a real server (requests in-process),
/// SQLite, the in-process APNs sandbox over HTTP/2 + TLS, its web push service for the browser.
@Suite struct CookSuggestAPITests {
    static let type = CookSuggestActivityAttributes.typeName

    static func setup(think: Int = 0) throws -> APISetup {
        try APISetup { configuration in
            configuration.environment["LIVELINE_COOKSUGGEST_THINK_MS"] = String(think)
            configuration.webPushSubject = "mailto:ops@liveline.test"
            configuration.webPushAllowInsecure = true
        }
    }

    static func request(
        _ setup: APISetup, _ method: String, _ path: String, _ bearer: String, json: String? = nil
    ) throws -> TestHTTPConnection.Response {
        try setup.server.request(method, path, token: bearer, json: json)
    }

    @Test func anInvitationReachesThePartnerOnEveryChannelAndTheSessionEndsDecided() async throws {
        let setup = try Self.setup()
        defer { setup.stop() }
        let dennis = try #require(try setup.server.app.store.accounts.user(id: setup.userID))
        let (her, herBearer) = try setup.server.addUser(household: "Fisch", name: "Jaqueline")
        let startToken = try setup.startDevice(1, type: Self.type, bearer: herBearer)
        let alertToken = String(repeating: "a1", count: 32)
        setup.sandbox.registerDevice(token: alertToken)
        #expect(
            try Self.request(
                setup, "POST", "/api/apns/register", herBearer, json: #"{"kind":"alert","token":"\#(alertToken)","device_id":"phone-1"}"#
            )
            .status == 200)
        let browser = try setup.sandbox.webPush.subscribe()
        #expect(
            try Self.request(
                setup, "POST", "/api/apns/register", herBearer,
                json: #"{"kind":"web-push","device_id":"laptop","token":\#(browser.subscription.canonicalJSON)}"#
            ).status == 200)

        let body = #"{"date":"2026-06-18","with_user_id":\#(her.id)}"#
        let created = try Self.request(setup, "POST", "/api/cook-suggest/sessions", setup.bearer, json: body)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json?["id"] as? String)
        #expect(id.hasPrefix("cs_") && created.json?["state"] as? String == "answering")
        #expect((created.json?["card"] as? [String: Any])?["statusLabel"] as? String == "Jaqueline füllt aus …")
        #expect(created.json?["contextKey"] as? String == "cooksuggest:\(id):\(dennis.id)")
        let again = try Self.request(setup, "POST", "/api/cook-suggest/sessions", setup.bearer, json: body)
        #expect(again.status == 200 && again.json?["id"] as? String == id && again.json?["created"] as? Bool == false, "\(again.text)")

        // The invitation: her card by push-to-start, an alert push with the link, a web push, the inbox.
        #expect(await eventually { setup.aps(startToken).count == 1 })
        let start = try #require(setup.aps(startToken).first)
        #expect(start["event"] as? String == "start" && start["attributes-type"] as? String == Self.type)
        #expect((start["attributes"] as? [String: Any])?["partnerName"] as? String == dennis.name)
        #expect(await eventually { setup.sandbox.accepted(token: alertToken).count == 1 })
        let alertPush = try #require(setup.sandbox.accepted(token: alertToken).first)
        let alert = try #require(try JSONSerialization.jsonObject(with: Data(alertPush.payload)) as? [String: Any])
        #expect(alert["link"] as? String == "/cook-suggest/\(id)")
        #expect(((alert["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? String == "Plan mit \(dennis.name) das Essen")
        #expect(await eventually { setup.sandbox.webPush.pushes(subscriptionID: browser.id).first?.plaintext != nil })
        let plaintext = try #require(setup.sandbox.webPush.pushes(subscriptionID: browser.id).first?.plaintext)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any])
        #expect(shown["title"] as? String == "Plan mit \(dennis.name) das Essen" && shown["icon"] as? String == "✨")
        #expect(shown["dedupeKey"] as? String == "cs-invite-\(id)")
        let inbox = try Self.request(setup, "GET", "/api/notifications", herBearer)
        let records = try #require(inbox.json?["notifications"] as? [[String: Any]], "\(inbox.text)")
        #expect(records.count == 1 && records.first?["dedupeKey"] as? String == "cs-invite-\(id)")

        // Bad answers: 400 naming the field, nothing changed.
        let bad = try Self.request(setup, "PUT", "/api/cook-suggest/sessions/\(id)/answers", herBearer, json: #"{"diet":["vegetarian","paleo"]}"#)
        #expect(bad.status == 400 && (bad.json?["error"] as? [String: Any])?["field"] as? String == "diet[1]", "\(bad.text)")
        let tooLong = try Self.request(setup, "PUT", "/api/cook-suggest/sessions/\(id)/answers", herBearer, json: #"{"maxMinutes":1000}"#)
        #expect((tooLong.json?["error"] as? [String: Any])?["field"] as? String == "maxMinutes")
        let unchanged = try Self.request(setup, "GET", "/api/cook-suggest/sessions/\(id)?since_rev=1", herBearer)
        #expect(unchanged.json?["unchanged"] as? Bool == true, "\(unchanged.text)")

        // Answers, ready, the proposals.
        #expect(
            try Self.request(setup, "PUT", "/api/cook-suggest/sessions/\(id)/answers", herBearer, json: #"{"diet":["vegetarian"],"maxMinutes":40}"#)
                .status == 200)
        #expect(try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/ready", herBearer).status == 200)
        let ready = try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/ready", setup.bearer)
        #expect(ready.json?["state"] as? String == "generating", "\(ready.text)")
        #expect(
            try await eventually {
                try Self.request(setup, "GET", "/api/cook-suggest/sessions/\(id)", setup.bearer).json?["state"] as? String == "proposed"
            })
        let proposed = try Self.request(setup, "GET", "/api/cook-suggest/sessions/\(id)", setup.bearer)
        let proposals = try #require(proposed.json?["proposals"] as? [[String: Any]])
        #expect(proposals.count == 3)
        let pick = try #require(proposals.first?["id"] as? String)
        let title = try #require(proposals.first?["title"] as? String)

        // A step of someone outside: 403; of another household: 404; not now: 409.
        let (_, strangerBearer) = try setup.server.addUser(household: "Other", name: "Stranger")
        #expect(try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/ready", strangerBearer).status == 404)
        let malformed = try Self.request(setup, "GET", "/api/cook-suggest/sessions/tr_\(id.dropFirst(3))", setup.bearer)
        #expect(malformed.status == 400 && malformed.text.contains("session id"), "\(malformed.text)")
        let (_, siblingBearer) = try setup.server.addUser(household: "Fisch", name: "Sibling")
        #expect(try Self.request(setup, "GET", "/api/cook-suggest/sessions/\(id)", siblingBearer).status == 403, "only participants read it")
        #expect(try Self.request(setup, "GET", "/api/cook-suggest/sessions/\(id)?since_rev=1", siblingBearer).status == 403)
        let badDay = try Self.request(setup, "POST", "/api/cook-suggest/sessions", setup.bearer, json: #"{"date":"2026-+6-18"}"#)
        #expect(badDay.status == 400 && (badDay.json?["error"] as? [String: Any])?["field"] as? String == "date", "\(badDay.text)")
        #expect(
            try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/pick", siblingBearer, json: #"{"proposal_id":"\#(pick)"}"#).status
                == 403)
        let notNow = try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/ready", herBearer)
        #expect(notNow.status == 409 && notNow.text.contains("proposed"), "\(notNow.text)")
        let unknown = try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/pick", herBearer, json: #"{"proposal_id":"nope"}"#)
        #expect(unknown.status == 400 && (unknown.json?["error"] as? [String: Any])?["field"] as? String == "proposal_id")

        // She picks; both confirm: decided, the missing ingredients on that week's list, the invitation resolved.
        let picked = try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/pick", herBearer, json: #"{"proposal_id":"\#(pick)"}"#)
        #expect(picked.status == 200)
        let his = try Self.request(setup, "GET", "/api/cook-suggest/sessions/\(id)", setup.bearer)
        #expect((his.json?["card"] as? [String: Any])?["statusLabel"] as? String == "Vorschlag: \(title)?")
        #expect(
            try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/confirm", herBearer, json: #"{"proposal_id":"\#(pick)"}"#).status == 200
        )
        let decided = try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/confirm", setup.bearer, json: #"{"proposal_id":"\#(pick)"}"#)
        #expect(decided.json?["state"] as? String == "decided", "\(decided.text)")
        let card = try #require(decided.json?["card"] as? [String: Any])
        #expect(card["statusLabel"] as? String == "Heute: \(title)" && card["ended"] as? Bool == true)
        let week = try Self.request(setup, "GET", "/api/shopping/2026-06-15", setup.bearer)
        let labels = (week.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
        let ingredients = ((decided.json?["decided"] as? [String: Any])?["ingredients"] as? [[String: Any]] ?? []).compactMap {
            $0["name"] as? String
        }
        #expect(!labels.isEmpty && labels == ingredients, "\(labels) vs \(ingredients)")
        let resolved = try Self.request(setup, "GET", "/api/notifications", herBearer)
        #expect((resolved.json?["notifications"] as? [[String: Any]])?.first?["resolved"] as? Bool == true, "\(resolved.text)")
        let final = try Self.request(setup, "POST", "/api/cook-suggest/sessions/\(id)/cancel", herBearer)
        #expect(final.status == 409 && final.text.contains("decided"))

        // A backend sending the invitation's own link through /v1/notify: the same form is taken.
        let link = try #require(alert["link"] as? String)
        let relayed = try setup.admin(
            "POST", "/v1/notify", json: #"{"userId":\#(her.id),"title":"Noch Hunger?","link":"\#(link)","dedupeKey":"relay-\#(id)"}"#)
        #expect(relayed.status == 201, "\(relayed.text)")
    }
}
