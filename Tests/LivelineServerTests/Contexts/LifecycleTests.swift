import Foundation
import LivelineModel
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// The lifecycle end to end (`docs/engine.md`, "Lifecycle"): the end with its dismissal date, nothing
/// after the end, the engine ending a context before its 8-hour deadline, dismissals and receipts.
@Suite struct LifecycleTests {
    @Test func anEndedContextGetsNoFurtherPushesEvenWhenItsStateIsWrittenAgain() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:over", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:over", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(try setup.admin("POST", "/v1/contexts/trip:over/end").status == 200)
        #expect(await eventually { setup.aps(token).last?["event"] as? String == "end" })
        let end = try #require(setup.aps(token).last)
        let dismissal = try #require(end["dismissal-date"] as? Int)
        let timestamp = try #require(end["timestamp"] as? Int)
        #expect((27...30).contains(dismissal - timestamp), "an ended trip leaves 30 s after its end was rendered")
        #expect(end["stale-date"] == nil)
        // The end's row is done (its push may be seen before it is recorded).
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let pushes = setup.sandbox.accepted(token: token).count
        let store = setup.server.app.store
        let rows = try store.outbox.rows(contextKey: "trip:over").count

        // Written again: by the API (refused) and by a domain write (the revision moves, nothing is sent).
        #expect(try setup.admin("PUT", "/v1/contexts/trip:over", json: ContextAPITests.trip(delay: 9)).status == 409)
        let rev = try store.write { try store.contexts.recordChange(key: "trip:over", now: Date(), note: "late domain write", in: $0) }
        #expect(rev == 3)
        // No row was added (sent or not), and the outbox is empty: nothing can be sent any more.
        #expect(try store.outbox.rows(contextKey: "trip:over").count == rows)
        #expect(try setup.outboxIsEmpty())
        #expect(setup.sandbox.accepted(token: token).count == pushes)
        #expect(try setup.admin("GET", "/v1/contexts/trip:over?since_rev=2").json?["unchanged"] as? Bool == false, "pull still tells the truth")
        // A pull tells an app that ends the card itself the dismissal date the end push carries.
        let pulled = try #require(try setup.admin("GET", "/v1/contexts/trip:over").json)
        let endedAt = try #require((pulled["endedAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(pulled)")
        let dismissalAt = try #require((pulled["dismissalAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(pulled)")
        #expect(dismissalAt.timeIntervalSince(endedAt) == 30, "a trip leaves 30 s after its end")
        #expect(Double(dismissal) >= dismissalAt.timeIntervalSince1970, "the end push, sent at or after the end, leaves no earlier")
    }

    @Test func theEngineEndsAContextBeforeItsEightHourDeadline() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock)
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:long", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:long", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(await eventually { setup.sandbox.accepted(token: token).count == 1 })

        clock.advance(by: 7 * 3600)
        setup.server.app.engine.sweepLifecycle()
        #expect(try setup.server.app.store.contexts.context(key: "trip:long")?.state == .active, "7 h in: still running")
        clock.advance(by: 55 * 60)  // 10 min margin: 7 h 55 min is past it
        setup.server.app.engine.sweepLifecycle()
        let context = try #require(try setup.server.app.store.contexts.context(key: "trip:long"))
        #expect(context.state == .ended)
        #expect(await eventually { setup.aps(token).last?["event"] as? String == "end" })
        let revisions = try setup.server.app.store.contexts.revisions(key: "trip:long")
        #expect(revisions.first?.note?.contains("ended by the engine 10 min before its 8-hour deadline") == true)
    }

    @Test func aDismissalStopsUpdatesAndNewStartsUntilAsked() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        _ = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        let update = try setup.device(0, contextKey: "trip:swiped", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:swiped", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(await eventually { setup.sandbox.accepted(token: update).count == 1 })

        let dismissed = try setup.server.request("POST", "/api/la/dismissed", token: setup.bearer, json: #"{"context_key":"trip:swiped"}"#)
        #expect(dismissed.status == 200 && dismissed.json?["endedTokens"] as? Int == 1, "\(dismissed.text)")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:swiped", json: ContextAPITests.trip(delay: 2)).status == 200)
        #expect(try await eventually { try setup.outboxIsEmpty() })
        #expect(setup.sandbox.accepted(token: update).count == 1, "no update to a dismissed activity")

        let body = #"{"userIds":[\#(setup.userID)],"alert":{"title":"Again?"}}"#
        let start = try setup.admin("POST", "/v1/contexts/trip:swiped/start", json: body)
        #expect((start.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "dismissed")
        let skipped = try setup.admin("GET", "/v1/contexts/trip:swiped/timeline").json?["entries"] as? [[String: Any]]
        let entry = skipped?.first { $0["kind"] as? String == "start" }
        #expect(
            entry?["note"] as? String == "start skipped" && (entry?["reason"] as? String)?.contains("dismissed") == true, "why a start was skipped")
        let asked = try setup.admin(
            "POST", "/v1/contexts/trip:swiped/start", json: body.replacingOccurrences(of: "}}", with: "},\"includeDismissed\":true}"))
        #expect((asked.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued", "\(asked.text)")

        // Another household cannot see (or dismiss) this household's contexts.
        let store = setup.server.app.store
        let (other, _) = try setup.server.addUser(household: "Other", name: "Olga")
        try store.write { transaction in
            try store.contexts.create(
                key: "shopping:\(setup.userID):w", activityType: "ShoppingActivityAttributes", householdID: other.householdID, attributes: "{}",
                contentState: nil, now: Date(), in: transaction
            )
        }
        let foreign = try setup.server.request(
            "POST", "/api/la/dismissed", token: setup.bearer, json: #"{"context_key":"shopping:\#(setup.userID):w"}"#)
        #expect(foreign.status == 404)
    }

    @Test func receiptsShowWhatEachDeviceRenderedBesideWhatWasSent() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:seen", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:seen", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:seen", json: ContextAPITests.trip(delay: 2)).status == 200)
        #expect(await eventually { setup.contentStates(token).last?["delay"] as? Int == 2 })
        // Drained: what was sent is recorded too (the timeline's sentRev). Not `outboxIsEmpty()`:
        // when the first row rendered rev 2, the second waits for the debounce as a quiet resend.
        #expect(try await eventually { try setup.dispatcherIsIdle() })

        let receipt = { (rev: Int, device: String) in
            try setup.server.request(
                "POST", "/api/la/receipts", token: setup.bearer, json: #"{"context_key":"trip:seen","rev":\#(rev),"device_id":"\#(device)"}"#)
        }
        #expect(try receipt(2, "phone-0").json?["rev"] as? Int == 2)
        #expect(try receipt(1, "phone-0").json?["rev"] as? Int == 2, "a late receipt of an older rev does not lower it")
        #expect(try receipt(1, "ipad").status == 200)
        let beyond = try receipt(3, "phone-0")
        #expect(beyond.status == 409 && beyond.errorField == "rev", "a revision the context has not reached conflicts with its state")
        #expect(
            try setup.server.request("POST", "/api/la/receipts", token: setup.bearer, json: #"{"context_key":"trip:nope","rev":1}"#).status == 404)

        let timeline = try setup.admin("GET", "/v1/contexts/trip:seen/timeline")
        #expect(timeline.json?["sentRev"] as? Int == 2)
        #expect(timeline.json?["acknowledged"] as? [String: Int] == ["phone-0": 2, "ipad": 1])
        let receipts = (timeline.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "receipt" }
        #expect(receipts.count == 2)
    }
}
