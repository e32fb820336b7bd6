import Foundation
import LivelineModel
import LivelineServer
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// Budgets and priority (`docs/engine.md`, "Budgets and priority"): material changes at 10 while the
/// activity's hourly ledger is under its limit, then at 5; quiet changes at 5 and debounced;
/// the timeline says why each push had its priority.
@Suite struct BudgetTests {
    /// Waits until the sandbox accepted `count` pushes for `token`.
    static func waitFor(_ count: Int, _ token: String, _ setup: ContextAPITests.Setup) async -> Bool {
        await eventually { setup.sandbox.accepted(token: token).count >= count }
    }

    /// Waits until the dispatcher has looked at the quiet change of `key` and held it back: its
    /// sync row is due again with the debounce as the reason (the clock stands still, so it stays).
    static func heldBack(_ key: String, _ setup: ContextAPITests.Setup) async throws -> Bool {
        try await eventually {
            try setup.server.app.store.outbox.rows(contextKey: key).contains { $0.status == .due && $0.lastError?.contains("quiet change") == true }
        }
    }

    /// A trip's budget is the transit feature's, 15 an hour (`docs/features/transit.md`); other
    /// types have the server's 12 (`LIVELINE_PRIORITY_BUDGET`).
    @Test func thirtyMaterialChangesInAnHourGiveTheTypesBudgetOfPriority10PushesAndTheRestAt5() async throws {
        let setup = try ContextAPITests.Setup { $0.minimumPushInterval = 0 }
        defer { setup.stop() }
        let plain = try setup.device(0, contextKey: "trip:budget", type: "TripLiveActivityAttributes")
        // A phone whose user allowed frequent updates gets a larger budget (36).
        let frequent = String(format: "%064x", 0xf4e9)
        setup.sandbox.registerDevice(token: frequent)
        let registered = try setup.server.request(
            "POST", "/api/apns/register", token: setup.bearer,
            json: """
                {"kind":"la-update","token":"\(frequent)","device_id":"phone-f","context_key":"trip:budget","attributes_type":"TripLiveActivityAttributes","frequent_pushes_enabled":true}
                """)
        #expect(registered.status == 200)

        for delay in 1...30 {
            #expect(try setup.admin("PUT", "/v1/contexts/trip:budget", json: ContextAPITests.trip(delay: delay)).status < 300)
            #expect(await Self.waitFor(delay, plain, setup), "push \(delay) arrived")
        }
        let priorities = setup.sandbox.accepted(token: plain).map(\.priority)
        #expect(priorities.count == 30)
        #expect(priorities.filter { $0 == 10 }.count == 15, "\(priorities)")
        #expect(priorities.prefix(15).allSatisfy { $0 == 10 } && priorities.dropFirst(15).allSatisfy { $0 == 5 })
        #expect(await eventually { setup.sandbox.accepted(token: frequent).count == 30 })
        let frequentPriorities = setup.sandbox.accepted(token: frequent).map(\.priority)
        #expect(
            frequentPriorities.count == 30 && frequentPriorities.allSatisfy { $0 == 10 }, "30 of 36 for the frequent phone: \(frequentPriorities)")
        // Drained: the last push's answers are recorded (and counted) too.
        #expect(try await eventually { try setup.outboxIsEmpty() })

        let timeline = try setup.admin("GET", "/v1/contexts/trip:budget/timeline?limit=1000")
        let notes = (timeline.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "delivery" }.compactMap {
            $0["note"] as? String
        }
        #expect(notes.contains { $0.contains("p10: material: delay 14 → 15 min; priority-10 push 15 of 15 this hour") }, "\(notes.prefix(3))")
        #expect(notes.contains { $0.contains("p5: material: delay 15 → 16 min, but the hour's budget is used (15 of 15 priority-10 pushes)") })
        #expect(try setup.admin("GET", "/metrics").text.contains("liveline_budget_limited_pushes_total 15"))
    }

    @Test func aQuietChangeGoesAtPriority5AfterTheDebounce() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock) { $0.minimumPushInterval = 0 }
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:quiet", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:quiet", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(await Self.waitFor(1, token, setup))
        // Only the remaining time changes: not material.
        let quiet = ContextAPITests.trip(delay: 1).replacingOccurrences(of: #""remainingTime":240"#, with: #""remainingTime":180"#)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:quiet", json: quiet).status == 200)
        #expect(try await Self.heldBack("trip:quiet", setup))
        #expect(setup.sandbox.accepted(token: token).count == 1, "held back by the debounce")
        let held = try setup.server.app.store.outbox.rows(contextKey: "trip:quiet").filter { $0.status == .due }
        #expect(held.count == 1 && held.first?.lastError?.contains("quiet change") == true)

        clock.advance(by: 31)
        setup.server.app.store.outbox.notifyEnqueued()
        #expect(await Self.waitFor(2, token, setup))
        let last = try #require(setup.sandbox.accepted(token: token).last)
        #expect(last.priority == 5)
        #expect(setup.contentStates(token).last?["remainingTime"] as? Int == 180)
        // Drained: the quiet push's answer is recorded too (attempts come newest first).
        #expect(try await eventually { try setup.outboxIsEmpty() })
        let attempt = try setup.server.app.store.deliveries.attempts(contextKey: "trip:quiet").first
        #expect(attempt?.note?.contains("p5: quiet change (not material)") == true)
    }

    @Test func anAlertOrAPriorityHintDecidesAndIsUsedOnce() async throws {
        let setup = try ContextAPITests.Setup { $0.minimumPushInterval = 0 }
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:hint", type: "TripLiveActivityAttributes")
        let withAlert = ContextAPITests.trip(delay: 1).replacingOccurrences(
            of: #""contentState""#, with: #""alert":{"title":"Delayed","body":"1 min late"},"contentState""#
        )
        #expect(try setup.admin("PUT", "/v1/contexts/trip:hint", json: withAlert).status == 201)
        #expect(await Self.waitFor(1, token, setup))
        let first = try #require(setup.aps(token).first)
        #expect((first["alert"] as? [String: Any])?["title"] as? String == "Delayed")
        // The next change may come before the first push's answer is recorded: the alert is
        // cleared all the same (AlertHintTests makes that order certain).
        // The alert went once; a priority-5 hint makes even a material change go quietly.
        let asked5 = ContextAPITests.trip(delay: 2).replacingOccurrences(of: #""contentState""#, with: #""priority":5,"contentState""#)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:hint", json: asked5).status == 200)
        #expect(await Self.waitFor(2, token, setup))
        #expect(setup.aps(token).last?["alert"] == nil)
        #expect(setup.sandbox.accepted(token: token).last?.priority == 5)
    }

    @Test func aMaterialChangeOrTheEndIsNotHeldBackByAWaitingQuietChange() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock) { $0.minimumPushInterval = 0 }
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:mixed", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:mixed", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(await Self.waitFor(1, token, setup))
        let quiet = ContextAPITests.trip(delay: 1).replacingOccurrences(of: #""remainingTime":240"#, with: #""remainingTime":120"#)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:mixed", json: quiet).status == 200)
        #expect(try await Self.heldBack("trip:mixed", setup))
        #expect(setup.sandbox.accepted(token: token).count == 1, "the quiet change waits")
        // The clock does not move: a material change goes at once, and carries the quiet one too.
        let late = quiet.replacingOccurrences(of: #""delay":1"#, with: #""delay":6"#)
        #expect(try setup.admin("PUT", "/v1/contexts/trip:mixed", json: late).status == 200)
        #expect(await Self.waitFor(2, token, setup))
        #expect(setup.contentStates(token).last?["delay"] as? Int == 6 && setup.contentStates(token).last?["remainingTime"] as? Int == 120)
        #expect(setup.sandbox.accepted(token: token).last?.priority == 10)
        #expect(
            try setup.admin(
                "PUT", "/v1/contexts/trip:mixed", json: late.replacingOccurrences(of: #""remainingTime":120"#, with: #""remainingTime":60"#)
            ).status == 200)
        #expect(try setup.admin("POST", "/v1/contexts/trip:mixed/end").status == 200)
        #expect(await eventually(timeout: 20) { setup.aps(token).last?["event"] as? String == "end" }, "the end is not held back by the debounce")
    }
}
