import Foundation
import Testing

@testable import LivelineEngine

/// A sync's render decisions as a pure function: what was read of the context in, materiality,
/// the debounce and the priorities out — no database.
@Suite struct SyncPlannerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let planner = SyncPlanner(configuration: EngineConfiguration(bundleID: "app", quietChangeDebounce: 30, priorityBudget: 12))

    static func facts(
        ended: Bool = false, alert: Bool = false, hint: Int? = nil, lastSent: Date? = now.addingTimeInterval(-10), fanOut: Bool = true
    ) -> SyncPlanner.Facts {
        SyncPlanner.Facts(
            rev: 7, activityType: "TripLiveActivityAttributes", ended: ended, hasAlert: alert, priorityHint: hint, lastSentAt: lastSent,
            fanOut: fanOut)
    }

    @Test func theEndAnAlertAndAPriorityTenHintAreMaterialWithoutAskingTheContract() {
        for (facts, why) in [
            (Self.facts(ended: true), "the end"), (Self.facts(alert: true), "an alert"), (Self.facts(hint: 10), "asked for priority 10"),
        ] {
            #expect(
                planner.changeMaterial(facts) {
                    Issue.record("the contract was asked"); return nil
                } == why)
        }
        #expect(planner.changeMaterial(Self.facts(hint: 5)) { "delay changed" } == nil, "a writer's 5 wins over the contract")
        #expect(planner.changeMaterial(Self.facts()) { "delay changed" } == "delay changed")
    }

    @Test func aQuietFanOutWaitsForTheDebounceAfterTheLastPushOnly() {
        #expect(planner.debounce(Self.facts(), changeMaterial: nil, now: Self.now) == Self.now.addingTimeInterval(20))
        #expect(planner.debounce(Self.facts(lastSent: Self.now.addingTimeInterval(-30)), changeMaterial: nil, now: Self.now) == nil)
        #expect(planner.debounce(Self.facts(lastSent: nil), changeMaterial: nil, now: Self.now) == nil, "nothing sent yet")
        #expect(planner.debounce(Self.facts(), changeMaterial: "delay changed", now: Self.now) == nil)
        #expect(planner.debounce(Self.facts(hint: 5), changeMaterial: nil, now: Self.now) == nil, "asked to go at 5: goes now")
        #expect(planner.debounce(Self.facts(fanOut: false), changeMaterial: nil, now: Self.now) == nil, "one target catching up")
        #expect(planner.debounceReason.contains("30 s debounce"))
    }

    @Test func aTargetBehindTheRevisionIsCaughtUpAsMaterial() {
        #expect(SyncPlanner.targetMaterial(receivedRev: nil, contextRev: 7) == "catching up (nothing delivered yet)")
        #expect(SyncPlanner.targetMaterial(receivedRev: 5, contextRev: 7) == "catching up from rev 5")
        #expect(SyncPlanner.targetMaterial(receivedRev: 7, contextRev: 7) == nil)
        #expect(planner.asksTargetRevision(Self.facts(fanOut: false)))
        #expect(!planner.asksTargetRevision(Self.facts(hint: 5, fanOut: false)) && !planner.asksTargetRevision(Self.facts()))
    }

    @Test func prioritiesFollowTheBudgetAndSayWhy() {
        var material = planner.priorities(Self.facts(), material: "delay changed")
        let within = material.plan(.channel("c"), token: nil, used: 11)
        #expect(within.priority == .immediate && within.note == "update rev 7 · p10: material: delay changed; priority-10 push 12 of 12 this hour")
        let over = material.plan(.channel("c"), token: nil, used: 12)
        #expect(over.priority == .considerPower && over.budgetLimited)
        var quiet = planner.priorities(Self.facts(fanOut: false), material: nil)
        #expect(quiet.plan(.channel("c"), token: nil).note == "update rev 7 · p5: a resend of the state already pushed")
        var asked = planner.priorities(Self.facts(ended: true, hint: 5), material: nil)
        #expect(asked.plan(.channel("c"), token: nil).note == "end rev 7 · p5: asked for priority 5")
    }
}
