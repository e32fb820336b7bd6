import Foundation
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

/// `docs/engine.md`, "App-reported activities": `POST /api/la/activity` records the app's own
/// activity per device — pending (scheduled by the app) until its date, then active; transient —
/// shows it in the timeline, refuses bad input naming the field, and a transient card is never
/// renewed.
@Suite struct ActivityReportTests {
    static let type = "TripLiveActivityAttributes"

    static func report(_ setup: ContextAPITests.Setup, _ json: String) throws -> TestHTTPConnection.Response {
        try setup.server.request("POST", "/api/la/activity", token: setup.bearer, json: json)
    }

    static func activityNotes(_ setup: ContextAPITests.Setup, _ key: String) throws -> [String] {
        let timeline = try setup.admin("GET", "/v1/contexts/\(key)/timeline")
        return (timeline.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "activity" }
            .map { "\($0["target"] ?? ""): \($0["note"] ?? "")" }
    }

    @Test func anAppScheduledActivityIsPendingUntilItsDateThenActiveInTheTimeline() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        _ = try setup.device(0, contextKey: "trip:later", type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:later", json: ContextAPITests.trip(delay: 1)).status == 201)
        let startsAt = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded()))
        let body = #"{"context_key":"trip:later","attributes_type":"\#(Self.type)","device_id":"phone-0","state":"pending","#
        let pending = try Self.report(setup, body + #""starts_at":"\#(startsAt)"}"#)
        #expect(pending.status == 200, "\(pending.text)")
        #expect(pending.json?["state"] as? String == "pending" && pending.json?["style"] as? String == "standard")
        #expect(try Self.activityNotes(setup, "trip:later") == ["phone-0: activity pending until \(startsAt)"])

        #expect(try Self.report(setup, #"{"context_key":"trip:later","device_id":"phone-0","state":"active"}"#).status == 200)
        #expect(try Self.activityNotes(setup, "trip:later") == ["phone-0: activity active"], "the newest report per device")
        let reports = try setup.server.app.store.reports.activities(contextKey: "trip:later")
        #expect(reports.map(\.state) == [.active] && reports.first?.startsAt == nil, "\(reports)")
        // A pending report may leave its date out (the app saw the state only).
        #expect(try Self.report(setup, #"{"context_key":"trip:later","device_id":"phone-1","state":"pending"}"#).status == 200)
        #expect(try Self.activityNotes(setup, "trip:later").contains("phone-1: activity pending"))
    }

    /// A start scheduled for later is answered by nothing the device sends meanwhile (the card it
    /// shows then is another, and may end before the start's time): when it is due, it goes out
    /// to a device whose card ended, and is skipped on one that shows the card then.
    @Test func aStartScheduledForLaterGoesOutUnlessTheDeviceShowsTheCardThen() async throws {
        let clock = ManualClock()
        let setup = try APISetup(.live, clock: clock)
        defer { setup.stop() }
        let ended = try setup.startDevice(0, type: Self.type)
        let shown = try setup.startDevice(1, type: Self.type)
        let transient = try setup.startDevice(2, type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:soon", json: ContextAPITests.trip(delay: 3)).status == 201)
        let at = clock.now.addingTimeInterval(1_800)
        let asked = try setup.admin(
            "POST", "/v1/contexts/trip:soon/start", json: ScheduledStartTests.body(userID: setup.userID.rawValue, at: ScheduledStartTests.time(at)))
        #expect((asked.json?["starts"] as? [[String: Any]])?.map { $0["outcome"] as? String } == ["queued", "queued", "queued"], "\(asked.text)")
        // phone-0's app shows a card of its own for a while, then it ends; phone-1's app starts one and keeps it.
        for (state, style) in [("active", "transient"), ("active", "standard"), ("ended", "standard")] {
            let report = try Self.report(setup, #"{"context_key":"trip:soon","device_id":"phone-0","state":"\#(state)","style":"\#(style)"}"#)
            #expect(report.status == 200, "\(report.text)")
        }
        _ = try setup.device(1, contextKey: "trip:soon", type: Self.type)
        // phone-2's app shows a transient card (with its token) at that time: the person's in the app, not a card that stays.
        _ = try Self.card(setup, 2, "trip:soon", token: 20, activityID: "T2")
        #expect(
            try Self.report(setup, #"{"context_key":"trip:soon","device_id":"phone-2","state":"active","style":"transient","activity_id":"T2"}"#)
                .status == 200)
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:soon").allSatisfy { $0.updateTokenAt == nil }, "not answered")
        clock.advance(by: 1_799)
        try await ScheduledStartTests.probe(setup, ended, "trip:probe", userID: setup.userID.rawValue)
        #expect(ScheduledStartTests.starts(setup, ended) == 1 && ScheduledStartTests.starts(setup, shown) == 1, "only the probe's so far")
        clock.advance(by: 1)
        #expect(await eventually { ScheduledStartTests.starts(setup, ended) == 2 }, "the scheduled start went out at its time")
        #expect(await eventually { ScheduledStartTests.starts(setup, transient) == 2 }, "a transient card does not keep it back")
        let skipped = await eventually {
            (try? setup.server.app.store.starts.starts(contextKey: "trip:soon").first { $0.deviceID == "phone-1" }?.status) == .skipped
        }
        #expect(skipped, "the device showing the card gets no second one")
        #expect(try await eventually { try setup.dispatcherIsIdle() })
        #expect(ScheduledStartTests.starts(setup, shown) == 1)
        let reason = try setup.server.app.store.starts.starts(contextKey: "trip:soon").first { $0.deviceID == "phone-1" }?.reason
        #expect(reason?.contains("showed the card already") == true, "\(reason ?? "none")")
    }

    @Test func badReportsAreRefusedNamingTheFieldAndNothingIsStored() throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        _ = try setup.device(0, contextKey: "trip:bad", type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:bad", json: ContextAPITests.trip(delay: 1)).status == 201)
        let far = ISO8601DateFormatter().string(from: Date().addingTimeInterval(8 * 86_400))
        let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(60))
        let past = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-3600))
        let cases: [(String, Int, String)] = [
            (#"{"context_key":"trip:bad","state":"running"}"#, 400, "state"),
            (#"{"context_key":"trip:bad","state":"active","style":"fleeting"}"#, 400, "style"),
            (#"{"context_key":"trip:bad","state":"pending","starts_at":"tomorrow"}"#, 400, "starts_at"),
            (#"{"context_key":"trip:bad","state":"pending","starts_at":"\#(far)"}"#, 422, "starts_at"),
            (#"{"context_key":"trip:bad","state":"active","starts_at":"\#(soon)"}"#, 422, "starts_at"),
            (#"{"context_key":"trip:bad","state":"active","attributes_type":"ShoppingActivityAttributes"}"#, 409, "attributes_type"),
            (#"{"context_key":"trip:bad","state":"active","device_id":""}"#, 400, "device_id"),
            (#"{"context_key":"","state":"active"}"#, 400, "context_key"),
            (#"{"context_key":"trip:bad","state":"pending","starts_at":"\#(past)"}"#, 422, "starts_at"),
            (#"{"context_key":"trip:bad","state":"active","activity_id":"a b"}"#, 400, "activity_id"),
            (#"{"context_key":"trip:bad","state":"active","activity_id":"\#(String(repeating: "a", count: 129))"}"#, 400, "activity_id"),
        ]
        for (json, status, field) in cases {
            let response = try Self.report(setup, json)
            #expect(response.status == status && response.errorField == field, "\(json): \(response.status) \(response.text)")
        }
        #expect(try Self.report(setup, #"{"context_key":"trip:nope","state":"active"}"#).status == 404)
        #expect(try setup.server.app.store.reports.activities(contextKey: "trip:bad").isEmpty)
        #expect(try Self.activityNotes(setup, "trip:bad").isEmpty)
        // An activity id goes with an update token only.
        let start = #"{"kind":"la-pushToStart","token":"\#(String(repeating: "ab", count: 32))","attributes_type":"\#(Self.type)","#
        let refused = try setup.server.request("POST", "/api/apns/register", token: setup.bearer, json: start + #""activity_id":"A1"}"#)
        #expect(refused.status == 400 && refused.errorField == "activity_id", "\(refused.text)")
        #expect(try setup.server.app.store.tokens.activeTokens(userID: setup.userID).count == 1, "only the update token of the setup")
    }

    @Test func aReportWithoutAStyleKeepsTheOneReportedBefore() throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        #expect(try setup.admin("PUT", "/v1/contexts/trip:kept", json: ContextAPITests.trip(delay: 1)).status == 201)
        _ = try setup.device(0, contextKey: "trip:kept", type: Self.type)
        let transient = try Self.report(setup, #"{"context_key":"trip:kept","device_id":"phone-0","state":"active","style":"transient"}"#)
        #expect(transient.json?["style"] as? String == "transient", "\(transient.text)")
        let ended = try Self.report(setup, #"{"context_key":"trip:kept","device_id":"phone-0","state":"ended"}"#)
        #expect(ended.json?["style"] as? String == "transient", "a transient card's end stays transient: \(ended.text)")
        #expect(try setup.server.app.store.reports.activities(contextKey: "trip:kept").map(\.style) == [.transient])
        // A first report without one is standard.
        let first = try Self.report(setup, #"{"context_key":"trip:kept","device_id":"phone-1","state":"active"}"#)
        #expect(first.json?["style"] as? String == "standard", "\(first.text)")
    }

    @Test func aTransientCardIsNeverRenewedWhileAStandardOneIs() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock) { $0.renewingTypes = [Self.type] }
        defer { setup.stop() }
        let standard = try setup.device(0, contextKey: "trip:mixed", type: Self.type)
        let transient = try setup.device(1, contextKey: "trip:mixed", type: Self.type)
        let standardStart = try setup.startDevice(0, type: Self.type)
        let transientStart = try setup.startDevice(1, type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:mixed", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(await eventually { setup.aps(standard).count == 1 && setup.aps(transient).count == 1 })
        let reported = try Self.report(setup, #"{"context_key":"trip:mixed","device_id":"phone-1","state":"active","style":"transient"}"#)
        #expect(reported.json?["style"] as? String == "transient", "\(reported.text)")
        #expect(try Self.activityNotes(setup, "trip:mixed") == ["phone-1: activity active · transient"])

        clock.advance(by: 7 * 3600 + 35 * 60)
        setup.server.app.engine.sweepLifecycle()
        let renewals = try setup.server.app.store.renewals.renewals(contextKey: "trip:mixed")
        #expect(renewals.map(\.deviceID) == ["phone-0"], "only the standard card gets a successor: \(renewals)")
        #expect(await eventually { setup.aps(standardStart).count == 1 })
        #expect(try await eventually { try setup.dispatcherIsIdle() })
        #expect(setup.aps(transientStart).isEmpty, "no successor start for the transient card")
    }

    /// A device's la-update token for `key` as card `activityID` (nil: the app sent none).
    static func card(_ setup: ContextAPITests.Setup, _ device: Int, _ key: String, token: Int, activityID: String?) throws -> String {
        let hex = String(format: "%064x", 0xca4d00 + token)
        setup.sandbox.registerDevice(token: hex)
        let id = activityID.map { #","activity_id":"\#($0)""# } ?? ""
        let body = #"{"kind":"la-update","token":"\#(hex)","device_id":"phone-\#(device)","context_key":"\#(key)"\#(id)}"#
        let response = try setup.server.request("POST", "/api/apns/register", token: setup.bearer, json: body)
        #expect(response.status == 200, "\(response.text)")
        return hex
    }

    /// A report belongs to its card (by `activity_id`), not to the device, whatever the order of
    /// report and registration: a transient mark stays with its card, an `ended` report ends its
    /// card's token and its renewal; a report without an id counts for the device's cards
    /// registered before it.
    @Test func renewalFollowsEachCardsOwnReportWhateverTheOrder() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock) { $0.renewingTypes = [Self.type] }
        defer { setup.stop() }
        let key = "trip:cards"
        #expect(try setup.admin("PUT", "/v1/contexts/\(key)", json: ContextAPITests.trip(delay: 1)).status == 201)
        func report(_ device: Int, _ state: String, style: String? = nil, id: String?) throws {
            let fields = [
                #""context_key":"\#(key)""#, #""device_id":"phone-\#(device)""#, #""state":"\#(state)""#,
                style.map { #""style":"\#($0)""# }, id.map { #""activity_id":"\#($0)""# },
            ].compactMap { $0 }
            let response = try Self.report(setup, "{" + fields.joined(separator: ",") + "}")
            #expect(response.status == 200, "\(response.text)")
        }
        _ = try Self.card(setup, 0, key, token: 0, activityID: "A0")  // no report: renewed
        try report(1, "active", style: "transient", id: "A1")  // reported before its token…
        _ = try Self.card(setup, 1, key, token: 1, activityID: "A1")
        _ = try Self.card(setup, 1, key, token: 11, activityID: "B1")  // …then a standard card replaces it: renewed
        _ = try Self.card(setup, 2, key, token: 2, activityID: "A2")
        try report(2, "active", style: "transient", id: "A2")  // transient after its token: not renewed
        let ended = try Self.card(setup, 3, key, token: 3, activityID: "A3")
        try report(3, "ended", id: "A3")  // ended: its token ends, no renewal
        try report(4, "ended", id: nil)  // an earlier card's end, without ids…
        try report(5, "active", style: "transient", id: "A5")  // transient, reported before its token: not renewed
        try report(6, "ended", id: "A6")  // ended before its token came: the token is not kept
        let newer = try Self.card(setup, 7, key, token: 7, activityID: "B7")  // a device showing a newer card…
        try report(7, "ended", id: "A7")
        clock.advance(by: 1)
        _ = try Self.card(setup, 4, key, token: 4, activityID: nil)  // …does not count for a card registered after it
        _ = try Self.card(setup, 5, key, token: 5, activityID: "A5")
        let late = try Self.card(setup, 6, key, token: 6, activityID: "A6")
        let stale = try Self.card(setup, 7, key, token: 17, activityID: "A7")  // …gets its older, ended card's token late
        let active = try setup.server.app.store.tokens.activeTokens(userID: setup.userID).map(\.token)
        #expect(!active.contains(ended) && !active.contains(late) && !active.contains(stale), "an ended card's token ends with it, whenever it came")
        #expect(active.contains(newer), "the newer card keeps its token")
        #expect(active.count == 6)

        clock.advance(by: 7 * 3600 + 35 * 60)
        setup.server.app.engine.sweepLifecycle()
        let renewals = try setup.server.app.store.renewals.renewals(contextKey: key)
        #expect(renewals.map(\.deviceID).sorted() == ["phone-0", "phone-1", "phone-4", "phone-7"], "\(renewals)")
    }

    /// An `active` report of a standard card answers the device's start sent before it, as a
    /// receipt does: the start is not sent again after its lease.
    @Test func anActiveReportAnswersTheStartItsCardCameFrom() async throws {
        let setup = try APISetup(.live)
        defer { setup.stop() }
        let token = try setup.startDevice(0, type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:now", json: ContextAPITests.trip(delay: 3)).status == 201)
        let asked = try setup.admin("POST", "/v1/contexts/trip:now/start", json: ScheduledStartTests.body(userID: setup.userID.rawValue, at: nil))
        #expect((asked.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued", "\(asked.text)")
        #expect(await eventually { ScheduledStartTests.starts(setup, token) == 1 })
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:now").first?.updateTokenAt == nil, "not answered yet")
        let transient = try Self.report(
            setup, #"{"context_key":"trip:now","device_id":"phone-0","state":"active","style":"transient","activity_id":"T"}"#)
        #expect(transient.status == 200, "\(transient.text)")
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:now").first?.updateTokenAt == nil, "a transient card answers no start")
        let report = try setup.server.request(
            "POST", "/api/la/activity", token: setup.bearer, json: #"{"context_key":"trip:now","device_id":"phone-0","state":"active"}"#)
        #expect(report.status == 200, "\(report.text)")
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:now").first?.updateTokenAt != nil, "answered by the report")
    }
}
