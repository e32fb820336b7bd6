import Foundation
import LivelineModel
import LivelineServer
import LivelineTestSupport
import LivelineTransitModel
import Synchronization
import Testing

/// Push-to-start end to end (`docs/engine.md`, "Lifecycle"): idempotent per context and device, a
/// start budget per device, unanswered starts marked suspect.
@Suite struct StartTests {
    static let start = #"{"userIds":[1],"alert":{"title":"S5 to the airport","body":"Live departures"}}"#

    @Test func twentyConcurrentStartRequestsForThreeDevicesSendExactlyThreeStarts() async throws {
        // Twenty connections at once: the server's threads take them.
        let setup = try ContextAPITests.Setup(.live)
        defer { setup.stop() }
        let tokens = try (0..<3).map { try setup.startDevice($0, type: "TripLiveActivityAttributes") }
        #expect(try setup.admin("PUT", "/v1/contexts/trip:start", json: ContextAPITests.trip(delay: 2)).status == 201)

        let port = try setup.server.port
        let body = Self.start.replacingOccurrences(of: "[1]", with: "[\(setup.userID)]")
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            let response = try? TestHTTPConnection(port: port).request(
                "POST", "/v1/contexts/trip:start/start", headers: ["Authorization": "Bearer \(ContextAPITests.adminKey)"],
                json: body
            )
            let starts = (response?.json?["starts"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
            outcomes.withLock { $0 += starts.isEmpty ? ["error \(response?.status ?? 0): \(response?.text ?? "")"] : starts }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.filter { $0 == "queued" }.count == 3, "\(all)")
        #expect(all.filter { $0 == "alreadyStarted" }.count == 57, "\(all.filter { $0 != "alreadyStarted" && $0 != "queued" })")

        // Drained: every start that was enqueued has been sent.
        #expect(try await eventually { try setup.outboxIsEmpty() })
        for token in tokens {
            let starts = setup.aps(token).filter { $0["event"] as? String == "start" }
            #expect(starts.count == 1, "one start per device, got \(starts.count)")
            let aps = try #require(starts.first)
            #expect(aps["attributes-type"] as? String == "TripLiveActivityAttributes")
            #expect((aps["attributes"] as? [String: Any])?["line"] as? String == "S5")
            #expect((aps["content-state"] as? [String: Any])?["delay"] as? Int == 2)
            #expect((aps["alert"] as? [String: Any])?["title"] as? String == "S5 to the airport")
            #expect(aps["input-push-token"] as? Int == 1)
            #expect(aps["stale-date"] is Int)
            #expect(setup.sandbox.accepted(token: token).first?.topic == "dev.liveline.demo.push-type.liveactivity")
        }
        let starts = try setup.server.app.store.starts.starts(contextKey: "trip:start")
        #expect(starts.count == 3 && starts.allSatisfy { $0.status == .sent })
    }

    @Test func aStartIsNeverSentAgainAndTheDeviceBudgetIsKept() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let token = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        let body = Self.start.replacingOccurrences(of: "[1]", with: "[\(setup.userID)]")
        var outcomes: [String] = []
        for index in 0..<9 {
            #expect(try setup.admin("PUT", "/v1/contexts/trip:budget-\(index)", json: ContextAPITests.trip(delay: index)).status == 201)
            let response = try setup.admin("POST", "/v1/contexts/trip:budget-\(index)/start", json: body)
            #expect(response.status == 200, "\(response.text)")
            outcomes += (response.json?["starts"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
        }
        #expect(outcomes == Array(repeating: "queued", count: 8) + ["overBudget"])
        // Asking again for a started context sends nothing.
        let again = try setup.admin("POST", "/v1/contexts/trip:budget-0/start", json: body)
        #expect((again.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "alreadyStarted")
        #expect(try await eventually { try setup.outboxIsEmpty() })
        #expect(setup.aps(token).filter { $0["event"] as? String == "start" }.count == 8)

        let timeline = try setup.admin("GET", "/v1/contexts/trip:budget-8/timeline")
        let start = try #require((timeline.json?["entries"] as? [[String: Any]])?.first { $0["kind"] as? String == "start" })
        #expect(start["note"] as? String == "start skipped")
        #expect((start["reason"] as? String)?.contains("start budget: 8 starts to this device") == true)
    }

    @Test func aStartWithoutAnUpdateTokenInTimeMarksTheStartTokenSuspect() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock)
        defer { setup.stop() }
        _ = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        _ = try setup.startDevice(1, type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:quiet", json: ContextAPITests.trip(delay: 1)).status == 201)
        let body = Self.start.replacingOccurrences(of: "[1]", with: "[\(setup.userID)]")
        #expect(try setup.admin("POST", "/v1/contexts/trip:quiet/start", json: body).status == 200)
        #expect(try await eventually { try setup.server.app.store.starts.starts(contextKey: "trip:quiet").allSatisfy { $0.status == .sent } })

        // Phone 1 answers with its update token (and gets the current state at once); phone 0 never does.
        let update = try setup.device(1, contextKey: "trip:quiet", type: "TripLiveActivityAttributes")
        #expect(await eventually { setup.contentStates(update).last?["delay"] as? Int == 1 }, "a new update token catches up")
        clock.advance(by: 6 * 60)
        setup.server.app.engine.sweepLifecycle()

        let starts = try setup.server.app.store.starts.starts(contextKey: "trip:quiet")
        #expect(starts.first { $0.deviceID == "phone-0" }?.suspectAt != nil)
        #expect(starts.first { $0.deviceID == "phone-1" }?.updateTokenAt != nil)
        #expect(starts.first { $0.deviceID == "phone-1" }?.suspectAt == nil)
        // The dispatcher's own sweep may have got there first and still be marking the token.
        let suspects = {
            try setup.server.app.store.tokens.activeTokens(userID: setup.userID).filter { $0.kind == .pushToStart && $0.suspectAt != nil }
        }
        #expect(try await eventually { try !suspects().isEmpty })
        #expect(try suspects().map(\.deviceID) == ["phone-0"])

        let timeline = try setup.admin("GET", "/v1/contexts/trip:quiet/timeline")
        let notes = (timeline.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "start" }.compactMap {
            $0["note"] as? String
        }
        #expect(notes.sorted() == ["start sent, update token received", "start suspect (no update token followed)"])
        let metrics = try setup.admin("GET", "/metrics").text
        #expect(metrics.contains("liveline_suspect_start_tokens 1"))
        #expect(metrics.contains(#"liveline_starts_total{outcome="suspect"} 1"#))
    }

    @Test func startsAreRefusedClearly() throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        #expect(try setup.admin("POST", "/v1/contexts/trip:none/start", json: Self.start).status == 404)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:x", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(try setup.admin("POST", "/v1/contexts/trip:x/start", json: #"{"alert":{"title":"T"}}"#).errorField == "userIds")
        #expect(try setup.admin("POST", "/v1/contexts/trip:x/start", json: #"{"userIds":[1]}"#).errorField == "alert")
        let none = try setup.admin("POST", "/v1/contexts/trip:x/start", json: Self.start.replacingOccurrences(of: "[1]", with: "[\(setup.userID)]"))
        #expect((none.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "noStartToken")
        #expect(try setup.admin("POST", "/v1/contexts/trip:x/end").status == 200)
        #expect(try setup.admin("POST", "/v1/contexts/trip:x/start", json: Self.start).status == 409)
    }

    @Test func aStartQueuedBeforeTheEndIsNeverSent() async throws {
        let setup = try ContextAPITests.Setup { $0.dispatcherEnabled = false }
        defer { setup.stop() }
        let token = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:late", json: ContextAPITests.trip(delay: 1)).status == 201)
        let body = Self.start.replacingOccurrences(of: "[1]", with: "[\(setup.userID)]")
        #expect(
            (try setup.admin("POST", "/v1/contexts/trip:late/start", json: body).json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String
                == "queued")
        #expect(try setup.admin("POST", "/v1/contexts/trip:late/end").status == 200)
        setup.server.app.engine.start()  // the dispatcher comes only now
        #expect(try await eventually { try setup.outboxIsEmpty() })
        #expect(setup.aps(token).isEmpty, "no card opened after the end")
        let start = try #require(try setup.server.app.store.starts.starts(contextKey: "trip:late").first)
        #expect(start.status == .skipped && start.reason?.contains("ended before the start went out") == true)
    }
}
