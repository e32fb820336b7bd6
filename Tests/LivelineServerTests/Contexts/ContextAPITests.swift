import Foundation
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// The `/v1` contexts API end to end: requests through the server's router and handlers
/// (in-process), a real SQLite file, the engine's dispatcher, and the in-process APNs sandbox over
/// HTTP/2 + TLS.
@Suite struct ContextAPITests {
    static let adminKey = APISetup.adminKey

    typealias Setup = APISetup

    static func trip(delay: Int, stop: String = "Hauptbahnhof") -> String {
        #"{"type":"TripLiveActivityAttributes","attributes":{"tripId":"t1","line":"S5","destination":"Flughafen"},"contentState":{"currentStop":"\#(stop)","nextStop":"Messe","nextStopTime":803461320,"remainingTime":240,"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}}"#
    }

    static func shopping(open: Int) throws -> String {
        var state = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ShoppingActivityAttributes.exampleContentState)) as! [String: Any]
        state.removeValue(forKey: "rev")
        state["open"] = open
        let body: [String: Any] = ["type": "ShoppingActivityAttributes", "attributes": ["week": "2026-01-05"], "contentState": state]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test func onePutReachesEveryRegisteredTokenWithTheNewRev() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let key = "shopping:ext:1"
        let tokens = try (0..<3).map { try setup.device($0, contextKey: key, type: "ShoppingActivityAttributes") }
        let other = try setup.device(7, contextKey: "shopping:ext:2", type: "ShoppingActivityAttributes")

        let first = try setup.admin("PUT", "/v1/contexts/\(key)", json: try Self.shopping(open: 4))
        #expect(first.status == 201, "\(first.text)")
        #expect(first.json?["rev"] as? Int == 1 && first.json?["created"] as? Bool == true)
        let second = try setup.admin("PUT", "/v1/contexts/\(key)", json: try Self.shopping(open: 3))
        #expect(second.status == 200 && second.json?["rev"] as? Int == 2)
        // The answer is the shared model's `PutContextResponse`, as an SDK decodes it.
        #expect(
            try APICoding.makeDecoder().decode(PutContextResponse.self, from: Data(second.body))
                == PutContextResponse(key: key, rev: 2, created: false))

        let arrived = await eventually { tokens.allSatisfy { setup.contentStates($0).last?["rev"] as? Int == 2 } }
        #expect(arrived)
        for token in tokens {
            #expect(setup.contentStates(token).last?["open"] as? Int == 3)
            #expect(setup.sandbox.accepted(token: token).last?.topic == "dev.liveline.demo.push-type.liveactivity")
        }
        // Drained: the sandbox holds a push before the dispatcher has recorded its answer.
        #expect(try await eventually { try setup.dispatcherIsIdle() })
        #expect(setup.contentStates(other).isEmpty)

        // Pull: the same rev is the short answer, an older one the whole truth.
        let same = try setup.admin("GET", "/v1/contexts/\(key)?since_rev=2")
        #expect(same.status == 200)
        #expect(same.json?["unchanged"] as? Bool == true && same.json?["rev"] as? Int == 2)
        #expect(same.json?["contentState"] == nil)
        let older = try setup.admin("GET", "/v1/contexts/\(key)?since_rev=1")
        #expect(older.json?["unchanged"] as? Bool == false)
        let state = older.json?["contentState"] as? [String: Any]
        #expect(state?["rev"] as? Int == 2 && state?["open"] as? Int == 3)
        #expect(older.json?["state"] as? String == "active" && older.json?["deadlineAt"] is String)

        let timeline = try setup.admin("GET", "/v1/contexts/\(key)/timeline")
        let entries = try #require(timeline.json?["entries"] as? [[String: Any]])
        #expect(entries.filter { $0["kind"] as? String == "revision" }.count == 2)
        let deliveries = entries.filter { $0["kind"] as? String == "delivery" }
        #expect(deliveries.count >= 3 && deliveries.allSatisfy { $0["status"] as? Int == 200 && $0["apnsId"] is String })
        #expect(!timeline.text.contains(tokens[0]), "the timeline never shows a device token")
    }

    @Test func aHundredRapidPutsBecomeFarFewerPushesTheLastCarryingTheLastRev() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:rapid", type: "TripLiveActivityAttributes")
        for delay in 1...100 {
            let response = try setup.admin("PUT", "/v1/contexts/trip:rapid", json: Self.trip(delay: delay))
            #expect(response.status == 200 || response.status == 201)
        }
        #expect(await eventually { setup.contentStates(token).last?["delay"] as? Int == 100 })
        // Drained (not `outboxIsEmpty()`: a row claimed after the last push rendered it waits for
        // the debounce as a quiet resend).
        #expect(try await eventually { try setup.dispatcherIsIdle() })
        let pushes = setup.contentStates(token)
        #expect(pushes.count < 50, "100 changes became \(pushes.count) pushes")
        let stamps = setup.sandbox.accepted(token: token).compactMap { push -> Int? in
            let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
            return (json?["aps"] as? [String: Any])?["timestamp"] as? Int
        }
        #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count, "timestamps strictly increase")
        let read = try setup.admin("GET", "/v1/contexts/trip:rapid")
        #expect(read.json?["rev"] as? Int == 100)
    }

    @Test func a410MarksTheTokenInvalidAndItIsNeverRetried() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:gone", type: "TripLiveActivityAttributes")
        setup.sandbox.markUnregistered(token: token, at: Date().addingTimeInterval(60))
        #expect(try setup.admin("PUT", "/v1/contexts/trip:gone", json: Self.trip(delay: 1)).status == 201)
        #expect(try await eventually { try setup.server.app.store.tokens.activeTokens(userID: setup.userID).isEmpty })
        #expect(try setup.admin("PUT", "/v1/contexts/trip:gone", json: Self.trip(delay: 2)).status == 200)
        // Drained: every row is done, so no retry is still to come.
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let attempts = try setup.server.app.store.deliveries.attempts(contextKey: "trip:gone")
        #expect(attempts.map(\.status) == [410])
        #expect(setup.sandbox.accepted(token: token).isEmpty)
    }

    @Test func serverErrorsAndTooManyRequestsAreRetriedWithBackoffUntilAccepted() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:flaky", type: "TripLiveActivityAttributes")
        setup.sandbox.setFaults(SandboxFaults(seed: 5, internalErrorShare: 0.4, tooManyRequestsShare: 0.4))
        #expect(try setup.admin("PUT", "/v1/contexts/trip:flaky", json: Self.trip(delay: 9)).status == 201)
        #expect(await eventually(timeout: 20) { setup.contentStates(token).last?["delay"] as? Int == 9 })
        // Drained: the accepted push's answer is recorded too.
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let attempts = try setup.server.app.store.deliveries.attempts(contextKey: "trip:flaky").sorted { $0.attemptedAt < $1.attemptedAt }
        #expect(attempts.last?.status == 200)
        #expect(attempts.dropLast().allSatisfy { $0.status == 500 || $0.status == 429 })
        // Backoff: each retry waited at least most of the policy's delay (20 ms, doubling, ±20 %).
        for (earlier, later) in zip(attempts, attempts.dropFirst()) {
            #expect(later.attemptedAt.timeIntervalSince(earlier.attemptedAt) >= 0.015)
        }
        #expect(try setup.server.app.store.tokens.activeTokens(userID: setup.userID).count == 1, "a 500 or 429 never marks a token")
    }

    @Test func aPushThatCanNeverBeSentIsADeadLetterInTheTimelineAndTheMetrics() async throws {
        let setup = try Setup { $0.pushRetry = RetryPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(20), maximumAttempts: 3) }
        defer { setup.stop() }
        _ = try setup.device(0, contextKey: "trip:down", type: "TripLiveActivityAttributes")
        setup.sandbox.setFaults(SandboxFaults(seed: 1, internalErrorShare: 1))
        #expect(try setup.admin("PUT", "/v1/contexts/trip:down", json: Self.trip(delay: 3)).status == 201)
        #expect(try await eventually { try setup.server.app.store.outbox.depth(now: Date()).dead == 1 })
        let timeline = try setup.admin("GET", "/v1/contexts/trip:down/timeline")
        let entries = try #require(timeline.json?["entries"] as? [[String: Any]])
        let dead = try #require(entries.first { $0["kind"] as? String == "deadLetter" })
        #expect((dead["reason"] as? String)?.contains("gave up after 3 attempts") == true)
        #expect(dead["targetKind"] as? String == "token")
        #expect(entries.filter { $0["kind"] as? String == "delivery" }.count == 3)
        #expect(entries.first?["kind"] as? String == "deadLetter", "newest first")

        let metrics = try setup.admin("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(metrics.text.contains(#"liveline_pushes_total{environment="sandbox",reason="InternalServerError",status="500"} 3"#))
        #expect(metrics.text.contains(#"liveline_outbox_rows{state="dead"} 1"#))
        #expect(metrics.text.contains("liveline_dead_letters_total 1"))
        #expect(metrics.text.contains("liveline_dispatch_latency_seconds_count 3"))
    }

    @Test func aStateThatDoesNotDecodeIsA422NamingTheKeyAndChangesNothing() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let cases: [(String, Int, String)] = [
            (#"{"type":"TripActivity","contentState":{}}"#, 422, "type"),
            (
                #"{"type":"TripLiveActivityAttributes","attributes":{"tripId":"t1","line":"S5","destination":"F"},"contentState":{"currentStop":"A"}}"#,
                422, "contentState.nextStop"
            ),
            (Self.trip(delay: 1).replacingOccurrences(of: #""delay":1"#, with: #""delay":"late""#), 422, "contentState.delay"),
            (Self.trip(delay: 1).replacingOccurrences(of: #""tripId":"t1","#, with: ""), 422, "attributes.tripId"),
            (Self.trip(delay: 1, stop: String(repeating: "x", count: 5000)), 422, "body"),
            (#"{"type":"TripLiveActivityAttributes"}"#, 400, "contentState"),
            (Self.trip(delay: 1).replacingOccurrences(of: #""contentState""#, with: #""priority":7,"contentState""#), 400, "priority"),
        ]
        for (body, status, field) in cases {
            let response = try setup.admin("PUT", "/v1/contexts/trip:bad", json: body)
            #expect(response.status == status, "\(body.prefix(120)): \(response.text)")
            #expect(response.errorField == field, "\(body.prefix(120)): \(response.text)")
        }
        #expect(try setup.admin("GET", "/v1/contexts/trip:bad").status == 404)
        #expect(try setup.server.app.store.contexts.revision(key: "trip:bad") == nil)
        #expect(try setup.admin("PUT", "/v1/contexts/bad%20key", json: Self.trip(delay: 1)).errorField == "key")
        #expect(try setup.admin("GET", "/v1/contexts/trip:x?since_rev=minus").errorField == "since_rev")
    }

    @Test func endingSendsTheFinalStateAndAnEndedContextRefusesChanges() async throws {
        let setup = try Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:end", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:end", json: Self.trip(delay: 2)).status == 201)
        let end = try setup.admin("POST", "/v1/contexts/trip:end/end")
        #expect(end.status == 200 && end.json?["rev"] as? Int == 2 && end.json?["alreadyEnded"] as? Bool == false)
        let events = {
            setup.sandbox.accepted(token: token).compactMap { push -> String? in
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
                return (json?["aps"] as? [String: Any])?["event"] as? String
            }
        }
        #expect(await eventually { events().last == "end" })
        #expect(try setup.admin("POST", "/v1/contexts/trip:end/end").json?["alreadyEnded"] as? Bool == true)
        let refused = try setup.admin("PUT", "/v1/contexts/trip:end", json: Self.trip(delay: 3))
        #expect(refused.status == 409 && refused.errorCode == "conflict")
        let other = try setup.admin("PUT", "/v1/contexts/trip:end", json: try Self.shopping(open: 1))
        #expect(other.status == 409)
        #expect(try setup.admin("GET", "/v1/contexts/trip:end").json?["state"] as? String == "ended")
        #expect(try setup.admin("POST", "/v1/contexts/nothing/end").status == 404)
    }

    @Test func everyContextRouteAndTheMetricsNeedTheAdminKey() throws {
        let setup = try Setup()
        defer { setup.stop() }
        for (method, path) in [
            ("PUT", "/v1/contexts/a"), ("GET", "/v1/contexts/a"), ("POST", "/v1/contexts/a/end"),
            ("GET", "/v1/contexts/a/timeline"), ("POST", "/v1/contexts/a/start"), ("POST", "/v1/notify"),
            ("POST", "/v1/notify/resolve"), ("GET", "/metrics"),
        ] {
            #expect(try setup.server.request(method, path, json: method == "PUT" ? Self.trip(delay: 1) : nil).status == 401)
            #expect(try setup.server.request(method, path, token: setup.bearer, json: method == "PUT" ? Self.trip(delay: 1) : nil).status == 401)
        }
        #expect(try setup.server.app.store.contexts.revision(key: "a") == nil)
    }
}
