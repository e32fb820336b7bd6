import Foundation
import LivelineDevices
import LivelineModel
import LivelinePush
import LivelinePushWire
import Testing

/// `docs/devices.md`, "Decoding", "Ordering and timing", "Budget", offline and rotation: through
/// server → APNs client → sandbox → device, checking the device's state and its logged reason.
@Suite struct UpdateRuleTests {
    /// A phone with a running trip `trip:<id>` and its update token.
    static func running(_ harness: DeviceHarness, _ id: String, rules: DeviceRules = DeviceRules()) async throws -> (SimulatedDevice, String) {
        let phone = await harness.phone("phone-\(id)", rules: rules)
        try harness.put(id, delay: 1)
        let outcomes = try harness.start(id)
        #expect(await harness.until { phone.activity(contextKey: "trip:\(id)")?.updateToken != nil }, "starts \(outcomes); \(phone.messages())")
        let token = try #require(phone.activity(contextKey: "trip:\(id)")?.updateToken)
        _ = await harness.until { (try? harness.app.store.starts.starts(contextKey: "trip:\(id)").first?.updateTokenAt) != nil }
        // The server catches the new token up with one push; let it land first.
        #expect(await harness.until { harness.sandbox.accepted(token: token).count >= 1 && phone.logged("updated (priority") })
        return (phone, token)
    }

    static func state(delay: Int, nextStopTime: Any = 803461320) -> [String: Any] {
        [
            "currentStop": "A", "nextStop": "B", "nextStopTime": nextStopTime, "remainingTime": 60, "delay": delay, "occupancy": "low",
            "phase": "inProgress", "progress": 0.4,
        ]
    }

    @Test func aStateThatDoesNotDecodeIsDroppedWithTheExactError() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, token) = try await Self.running(harness, "dec")
        let iso =
            ["event": "update", "timestamp": harness.now + 100, "content-state": Self.state(delay: 4, nextStopTime: "2026-01-05T10:00:00Z")]
            as [String: Any]
        #expect(try await harness.raw(token, iso).status == 200, "APNs accepts it: only the phone drops it")
        #expect(await harness.until { phone.logged("content-state does not decode: nextStopTime must be a number, not '") }, "\(phone.messages())")
        var missing = Self.state(delay: 4)
        missing.removeValue(forKey: "phase")
        #expect(try await harness.raw(token, ["event": "update", "timestamp": harness.now + 101, "content-state": missing]).status == 200)
        #expect(await harness.until { phone.logged("content-state does not decode: phase") }, "\(phone.messages())")
        var extra = Self.state(delay: 6)
        extra["somethingNew"] = true
        let timestamp = harness.now + 102
        #expect(try await harness.raw(token, ["event": "update", "timestamp": timestamp, "content-state": extra]).status == 200)
        #expect(
            await harness.until { phone.logged("updated (priority 10, timestamp \(timestamp))") }, "unknown keys are ignored: \(phone.messages())")
    }

    @Test func olderOrFarFutureTimestampsAreDroppedButTheEndAlwaysCounts() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, token) = try await Self.running(harness, "ts")
        let current = try #require(phone.activity(contextKey: "trip:ts")?.timestamp)
        #expect(try await harness.raw(token, ["event": "update", "timestamp": current, "content-state": Self.state(delay: 9)]).status == 200)
        #expect(await harness.until { phone.logged("timestamp \(current) not newer than current \(current)") })
        let future = harness.now + 9 * 3600
        #expect(try await harness.raw(token, ["event": "update", "timestamp": future, "content-state": Self.state(delay: 9)]).status == 200)
        #expect(await harness.until { phone.logged("timestamp \(future) is more than 8 hours ahead") })
        #expect(phone.activity(contextKey: "trip:ts")?.contentState.objectValue?["delay"] == .int(1))
        // An end with an old timestamp still ends it; what comes after is ignored.
        #expect(try await harness.raw(token, ["event": "end", "timestamp": current - 100, "content-state": Self.state(delay: 2)]).status == 200)
        #expect(await harness.until { phone.activity(contextKey: "trip:ts")?.state == .ended })
        #expect(
            try await harness.raw(token, ["event": "update", "timestamp": harness.now + 500, "content-state": Self.state(delay: 3)]).status == 200)
        #expect(await harness.until { phone.logged("update arrived after the activity ended: ignored") })
        #expect(phone.activity(contextKey: "trip:ts")?.contentState.objectValue?["delay"] == .int(2))
    }

    @Test func priority10UpdatesBeyondTheBudgetAreThrottledPriority5AreNot() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        var rules = DeviceRules()
        rules.priorityBudget = 2
        let (phone, token) = try await Self.running(harness, "bud", rules: rules)  // the catch-up push used 1 of 2
        let base = harness.now
        for delay in 2...4 {
            #expect(
                try await harness.raw(token, ["event": "update", "timestamp": base + delay, "content-state": Self.state(delay: delay)]).status == 200)
        }
        // Of the three, what the budget leaves room for is applied, the rest is throttled.
        #expect(
            await harness.until {
                phone.log.filter { $0.message.contains("throttled: 2 priority-10 updates in the last hour (budget 2)") }.count >= 1
            }, "\(phone.messages())")
        #expect(phone.log.filter { $0.message.contains("updated (priority 10") }.count <= 2, "never more than the budget: \(phone.messages())")
        let quiet = try await harness.raw(
            token, ["event": "update", "timestamp": base + 10, "content-state": Self.state(delay: 8)], priority: .considerPower)
        #expect(quiet.status == 200)
        #expect(await harness.until { phone.logged("updated (priority 5, timestamp \(base + 10))") }, "priority 5 does not count")
    }

    @Test func offlineTheDeviceGetsOnlyTheLatestPush() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, _) = try await Self.running(harness, "off")
        harness.fleet.setOnline(false, device: phone.id)
        for delay in [3, 4, 5] {
            try harness.put("off", delay: delay)
            _ = await harness.until { harness.sandbox.accepted(token: phone.activity(contextKey: "trip:off")!.updateToken!).count >= delay - 1 }
        }
        // Drained: the sandbox counts a push before the fleet has routed it; once the outbox is
        // empty every accepted push has been handed to the fleet.
        #expect(await harness.until { harness.outboxIsEmpty })
        await harness.fleet.settle()
        #expect(phone.activity(contextKey: "trip:off")?.contentState.objectValue?["delay"] == .int(1))
        #expect(phone.log.filter { $0.message.contains("APNs keeps only the latest push") }.count == 2)
        harness.fleet.setOnline(true, device: phone.id)
        #expect(await harness.until { phone.activity(contextKey: "trip:off")?.contentState.objectValue?["delay"] == .int(5) })
    }

    @Test func aRotatedUpdateTokenGets410AndTheNewOneIsUsed() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let (phone, old) = try await Self.running(harness, "rot")
        harness.fleet.rotateUpdateToken(device: phone.id, contextKey: "trip:rot")
        let new = try #require(phone.activity(contextKey: "trip:rot")?.updateToken)
        #expect(new != old)
        #expect(!harness.sandbox.isActive(token: old))
        #expect(try await harness.raw(old, ["event": "update", "timestamp": harness.now + 5, "content-state": Self.state(delay: 2)]).status == 410)
        #expect(await harness.until { (try? harness.app.store.tokens.activeTokens(userID: harness.userID).contains { $0.token == new }) == true })
        try harness.put("rot", delay: 6)
        #expect(await harness.until { phone.activity(contextKey: "trip:rot")?.contentState.objectValue?["delay"] == .int(6) })
        #expect(harness.sandbox.accepted(token: new).count >= 1)
        #expect(phone.logged("update token rotated") && phone.logged("app registered its la-update token for trip:rot"))
    }
}
