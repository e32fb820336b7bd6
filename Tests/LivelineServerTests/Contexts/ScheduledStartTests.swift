import Foundation
import LivelineServer
import LivelineTestSupport
import LivelineTesting
import Testing

/// Scheduled starts end to end (`docs/api.md`, "Scheduled starts"): `at` on
/// `POST /v1/contexts/{key}/start` sends the push-to-start then, once, across a restart; a server
/// down at that time sends it within the grace period after it, else records it as missed.
@Suite struct ScheduledStartTests {
    static let type = "TripLiveActivityAttributes"

    static func body(userID: Int, at: String?) -> String {
        let at = at.map { #","at":"\#($0)""# } ?? ""
        return #"{"userIds":[\#(userID)],"alert":{"title":"S5 to the airport"}\#(at)}"#
    }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    /// The start pushes the sandbox accepted for `token`.
    static func starts(_ setup: APISetup, _ token: String) -> Int {
        setup.aps(token).filter { $0["event"] as? String == "start" }.count
    }

    /// Starts `probe` at once on the setup's device and waits until APNs has it: the dispatcher
    /// looked at the outbox at the clock's present time (and would have sent a start due by then).
    static func probe(_ setup: APISetup, _ token: String, _ key: String, userID: Int) async throws {
        #expect(try setup.admin("PUT", "/v1/contexts/\(key)", json: ContextAPITests.trip(delay: 0)).status == 201)
        let before = starts(setup, token)
        #expect(try setup.admin("POST", "/v1/contexts/\(key)/start", json: body(userID: userID, at: nil)).status == 200)
        #expect(await eventually { starts(setup, token) == before + 1 })
    }

    static func timelineNotes(_ setup: APISetup, _ key: String) throws -> [String] {
        let timeline = try setup.admin("GET", "/v1/contexts/\(key)/timeline")
        return (timeline.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "start" }.compactMap {
            $0["note"] as? String
        }
    }

    @Test func aStartThirtySecondsAheadGoesOutThenAndOnce() async throws {
        let clock = ManualClock()
        let setup = try APISetup(.live, clock: clock)
        defer { setup.stop() }
        let token = try setup.startDevice(0, type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:later", json: ContextAPITests.trip(delay: 3)).status == 201)
        let at = clock.now.addingTimeInterval(30)
        let body = Self.body(userID: setup.userID.rawValue, at: Self.time(at))
        let response = try setup.admin("POST", "/v1/contexts/trip:later/start", json: body)
        #expect(response.status == 200, "\(response.text)")
        #expect((response.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued")
        #expect(try Self.timelineNotes(setup, "trip:later") == ["start scheduled for \(Self.time(at))"])
        // Idempotent as every start: asked again, nothing more is scheduled.
        let again = try setup.admin("POST", "/v1/contexts/trip:later/start", json: body)
        #expect((again.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "alreadyStarted")

        clock.advance(by: 29)
        try await Self.probe(setup, token, "trip:probe", userID: setup.userID.rawValue)
        #expect(setup.aps(token).allSatisfy { ($0["content-state"] as? [String: Any])?["delay"] as? Int == 0 }, "not before its time")

        clock.advance(by: 1)
        #expect(await eventually { Self.starts(setup, token) == 2 })
        let start = try #require(setup.aps(token).last)
        #expect((start["content-state"] as? [String: Any])?["delay"] as? Int == 3)
        // Stale counted from when it goes out: a second after the probe's, rendered at T+29 s.
        let probeStale = try #require(setup.aps(token).first?["stale-date"] as? Int)
        #expect(start["stale-date"] as? Int == probeStale + 1)
        #expect(try await eventually { try setup.outboxIsEmpty() })
        #expect(Self.starts(setup, token) == 2, "sent once")
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:later").map(\.status) == [.sent])
    }

    @Test func aScheduledStartGoesToThePushToStartTokenThatReplacedItsOwn() async throws {
        let clock = ManualClock()
        let setup = try APISetup(.live, clock: clock)
        defer { setup.stop() }
        let old = try setup.startDevice(0, type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:renewed", json: ContextAPITests.trip(delay: 5)).status == 201)
        let at = Self.time(clock.now.addingTimeInterval(3600))
        #expect(try setup.admin("POST", "/v1/contexts/trip:renewed/start", json: Self.body(userID: setup.userID.rawValue, at: at)).status == 200)

        // The app's push-to-start token changes before the start's time.
        let new = String(repeating: "ab", count: 32)
        setup.sandbox.registerDevice(token: new)
        let register = #"{"kind":"la-pushToStart","token":"\#(new)","device_id":"phone-0","attributes_type":"\#(Self.type)"}"#
        #expect(try setup.server.request("POST", "/api/apns/register", token: setup.bearer, json: register).status == 200)
        clock.advance(by: 3600)
        #expect(await eventually { Self.starts(setup, new) == 1 })
        #expect(try await eventually { try setup.outboxIsEmpty() })
        #expect(Self.starts(setup, old) == 0)
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:renewed").map(\.status) == [.sent])
    }

    /// What happens to a start scheduled at T+30 s when the server stops at T+10 s and is back
    /// `downFor` seconds later.
    enum Restart: String, CaseIterable, Sendable {
        /// Back before its time: sent at T+30 s.
        case beforeItsTime
        /// Back within the grace period after it: sent at once.
        case withinGrace
        /// Back after the grace period: missed, never sent.
        case afterGrace

        var downFor: TimeInterval {
            switch self {
            case .beforeItsTime: 5
            case .withinGrace: 20 + 5 * 60
            case .afterGrace: 20 + 11 * 60
            }
        }
    }

    @Test(arguments: Restart.allCases) func aScheduledStartSurvivesARestart(_ restart: Restart) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-scheduled-\(UUID().uuidString)")
        let sandbox = try APISetup.externalSandbox(folder)
        defer {
            sandbox.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        let clock = ManualClock()
        let first = try APISetup(.live, folder: folder, external: sandbox, clock: clock)
        let token = try first.startDevice(0, type: Self.type)
        #expect(try first.admin("PUT", "/v1/contexts/trip:restart", json: ContextAPITests.trip(delay: 4)).status == 201)
        let at = clock.now.addingTimeInterval(30)
        let start = try first.admin("POST", "/v1/contexts/trip:restart/start", json: Self.body(userID: first.userID.rawValue, at: Self.time(at)))
        #expect((start.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued", "\(start.text)")
        clock.advance(by: 10)
        first.stop(keepData: true)

        clock.advance(by: restart.downFor)
        let second = try APISetup(.live, folder: folder, external: sandbox, clock: clock)
        defer { second.stop() }
        switch restart {
        case .beforeItsTime:
            try await Self.probe(second, token, "trip:probe", userID: first.userID.rawValue)
            #expect(Self.starts(second, token) == 1, "only the probe before its time")
            clock.advance(by: 15)
            #expect(await eventually { Self.starts(second, token) == 2 })
        case .withinGrace:
            #expect(await eventually { Self.starts(second, token) == 1 })
        case .afterGrace:
            try await Self.probe(second, token, "trip:probe", userID: first.userID.rawValue)
            #expect(try Self.timelineNotes(second, "trip:restart") == ["start missed"])
            let record = try #require(try second.server.app.store.starts.starts(contextKey: "trip:restart").first)
            #expect(record.status == .failed && record.missedAt != nil)
            #expect(record.reason?.contains("missed: scheduled for \(Self.time(at))") == true, "\(record.reason ?? "")")
            #expect(try second.admin("GET", "/metrics").text.contains(#"liveline_starts_total{outcome="missed"} 1"#))
        }
        #expect(try await eventually { try second.outboxIsEmpty() })
        let sent = sandbox.accepted(token: token).filter { push in
            let aps = (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
            return (aps?["content-state"] as? [String: Any])?["delay"] as? Int == 4
        }
        #expect(sent.count == (restart == .afterGrace ? 0 : 1), "the scheduled start, once (or never when missed)")
    }

    @Test func aStartAtAnImpossibleTimeIsRefusedAndNothingIsStored() throws {
        let clock = ManualClock()
        let setup = try APISetup(clock: clock)
        defer { setup.stop() }
        _ = try setup.startDevice(0, type: Self.type)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:bad", json: ContextAPITests.trip(delay: 1)).status == 201)
        let user = setup.userID.rawValue
        // Past the tolerance; beyond the horizon; within it, but after the context is ended (8 h
        // after it began, less the engine's margin).
        let outside = [
            Self.time(clock.now.addingTimeInterval(-61)), Self.time(clock.now.addingTimeInterval(7 * 24 * 3600 + 1)),
            Self.time(clock.now.addingTimeInterval(8 * 3600 - 9 * 60)),
        ]
        for at in outside + ["tomorrow", "2026-02-30T08:00:00Z", "2026-06-18 08:00:00Z"] {
            let response = try setup.admin("POST", "/v1/contexts/trip:bad/start", json: Self.body(userID: user, at: at))
            #expect(response.status == (outside.contains(at) ? 422 : 400), "\(at): \(response.status) \(response.text)")
            #expect(response.errorField == "at", "\(at): \(response.text)")
        }
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:bad").isEmpty)
        #expect(try setup.server.app.store.outbox.rows(contextKey: "trip:bad").filter { $0.kind == .message }.isEmpty)
        // Within the clock-skew tolerance, and with an offset and fractions: taken (at once).
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(secondsFromGMT: 2 * 3600)
        let skewed = formatter.string(from: clock.now.addingTimeInterval(-59))
        #expect(skewed.hasSuffix("+02:00") && skewed.contains("."))
        let response = try setup.admin("POST", "/v1/contexts/trip:bad/start", json: Self.body(userID: user, at: skewed))
        #expect((response.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued", "\(response.text)")
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:bad").first?.scheduledAt == nil)
    }
}
