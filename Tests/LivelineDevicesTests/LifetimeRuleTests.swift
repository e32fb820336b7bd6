import Foundation
import LivelineDevices
import LivelineModel
import Testing

/// `docs/devices.md`, "Lifetime": the 8-hour end, the 4-hour cap, stale dates, dismissal dates — on a
/// manual clock, so hours pass in milliseconds.
@Suite struct LifetimeRuleTests {
    @Test func eightHoursEndTheActivityAndItLeavesAtMostFourHoursLater() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, _) = try await UpdateRuleTests.running(harness, "long")
        harness.clock.advance(by: 7 * 3600)
        harness.fleet.tick(device: phone.id)
        #expect(phone.activity(contextKey: "trip:long")?.state != .ended)
        harness.clock.advance(by: 3600)
        harness.fleet.tick(device: phone.id)
        #expect(phone.activity(contextKey: "trip:long")?.state == .ended)
        #expect(phone.logged("ended by the system: 8 hours since its start"))
        harness.clock.advance(by: 4 * 3600 - 60)
        harness.fleet.tick(device: phone.id)
        #expect(phone.activity(contextKey: "trip:long")?.isVisible == true)
        harness.clock.advance(by: 120)
        harness.fleet.tick(device: phone.id)
        #expect(phone.activity(contextKey: "trip:long") == nil, "gone from the lock screen")
        #expect(phone.logged("removed from the lock screen"))
    }

    @Test func theStaleDateMakesTheCardStaleAndAnUpdateFreshensIt() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let before = Date()
        let (phone, _) = try await UpdateRuleTests.running(harness, "stale")
        let staleAt = try #require(phone.activity(contextKey: "trip:stale")?.staleAt)
        let after = Date()
        // Rendered (in whole seconds) between `before` and `after`, however slow the machine.
        #expect(
            staleAt >= before.addingTimeInterval(600 - 1) && staleAt <= after.addingTimeInterval(600),
            "the server sends a trip's 10-minute stale date: \(staleAt.timeIntervalSince(before)) s after the start"
        )
        // A minute past the stale date on the device's clock (which started with the harness: on a
        // loaded machine the card may have been rendered well after that).
        harness.clock.advance(by: max(11 * 60, staleAt.timeIntervalSince(harness.clock.now) + 60))
        harness.fleet.tick(device: phone.id)
        #expect(phone.activity(contextKey: "trip:stale")?.state == .stale)
        #expect(phone.card(contextKey: "trip:stale")?.lockScreen.contains("(out of date)") == true)
        try harness.put("stale", delay: 4)
        // The server's new stale date is 10 minutes after *its* now; the device clock is ahead, so
        // it stays stale until a push's stale date lies beyond the device's now.
        #expect(await harness.until { phone.activity(contextKey: "trip:stale")?.contentState.objectValue?["delay"] == .int(4) })
        let token = try #require(phone.activity(contextKey: "trip:stale")?.updateToken)
        let fresh = Int(harness.clock.now.timeIntervalSince1970) + 600
        #expect(
            try await harness.raw(
                token, ["event": "update", "timestamp": harness.now + 50, "stale-date": fresh, "content-state": UpdateRuleTests.state(delay: 5)]
            ).status == 200)
        #expect(await harness.until { phone.activity(contextKey: "trip:stale")?.state == .active })
    }

    @Test func aDismissalDateCountsOnlyOnEndAndAPastOneRemovesAtOnce() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, token) = try await UpdateRuleTests.running(harness, "dis")
        #expect(
            try await harness.raw(
                token,
                [
                    "event": "update", "timestamp": harness.now + 5, "dismissal-date": harness.now - 10,
                    "content-state": UpdateRuleTests.state(delay: 2),
                ]
            ).status == 200)
        #expect(await harness.until { phone.logged("dismissal-date on an update has no effect") })
        #expect(phone.activity(contextKey: "trip:dis")?.state == .active)
        // Past for the device: its clock (the harness's manual clock) is the one that counts.
        let past = Int(harness.clock.now.timeIntervalSince1970) - 10
        #expect(
            try await harness.raw(
                token, ["event": "end", "timestamp": harness.now + 6, "dismissal-date": past, "content-state": UpdateRuleTests.state(delay: 2)]
            ).status == 200)
        #expect(await harness.until { phone.logged("ended; dismissal-date already past: removed at once") })
        #expect(phone.activity(contextKey: "trip:dis") == nil)

        // Through the server: the end carries the trip's 30-second dismissal date.
        let (other, _) = try await UpdateRuleTests.running(harness, "dis2")
        let ending = Date()
        #expect(try harness.admin("POST", "/v1/contexts/trip:dis2/end").status == 200)
        #expect(await harness.until { other.activity(contextKey: "trip:dis2")?.state == .ended })
        let dismissAt = try #require(other.activity(contextKey: "trip:dis2")?.dismissAt)
        let ended = Date()
        // The end was rendered (in whole seconds) between `ending` and `ended`, however slow the machine.
        #expect(
            dismissAt >= ending.addingTimeInterval(30 - 1) && dismissAt <= ended.addingTimeInterval(30),
            "the trip's 30-second dismissal date: \(dismissAt.timeIntervalSince(ending)) s after the end was asked"
        )
        harness.clock.advance(by: dismissAt.timeIntervalSince(harness.clock.now) - 1)
        harness.fleet.tick(device: other.id)
        #expect(other.activity(contextKey: "trip:dis2")?.state == .ended, "a second before its dismissal date it is still there")
        harness.clock.advance(by: 2)
        harness.fleet.tick(device: other.id)
        #expect(other.activity(contextKey: "trip:dis2") == nil)
    }

    @Test func anEndTheAppPullsBeforeItsPushLeavesAtTheServersDismissalDateNotFourHoursLater() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, _) = try await UpdateRuleTests.running(harness, "pulled")
        // Every push is lost from now on: the app learns of the end only from its own pull.
        harness.fleet.setFaults(DeviceFaults(seed: 1, dropShare: 1))
        let ending = Date()
        #expect(try harness.admin("POST", "/v1/contexts/trip:pulled/end").status == 200)
        let ended = Date()
        harness.fleet.foreground(device: phone.id)
        #expect(await harness.until { phone.activity(contextKey: "trip:pulled")?.state == .ended }, "\(phone.messages())")
        #expect(phone.logged("updated by the app from pull") && !phone.logged("ended; dismissal-date"), "ended by the pull, not by the push")
        let dismissAt = try #require(phone.activity(contextKey: "trip:pulled")?.dismissAt)
        #expect(
            dismissAt >= ending.addingTimeInterval(30 - 1) && dismissAt <= ended.addingTimeInterval(30),
            "the trip's 30-second dismissal date, as the end push carries it: \(dismissAt.timeIntervalSince(ending)) s after the end"
        )
        harness.clock.advance(by: dismissAt.timeIntervalSince(harness.clock.now) + 1)
        harness.fleet.tick(device: phone.id)
        #expect(phone.activity(contextKey: "trip:pulled") == nil, "gone at the dismissal date")
    }
}
