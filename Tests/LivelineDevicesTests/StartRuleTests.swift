import Foundation
import LivelineDevices
import LivelineModel
import Testing

/// `docs/devices.md`, "Starts and tokens" and "~5 activities per app": through server → APNs client →
/// sandbox → device, checking the device's state and its logged reason.
@Suite struct StartRuleTests {
    @Test func aPushToStartCreatesTheCardAndTheAppRegistersItsUpdateToken() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        try harness.put("s1", delay: 2)
        #expect(try harness.start("s1") == ["queued"])
        #expect(await harness.until { phone.activity(contextKey: "trip:s1")?.updateToken != nil })
        let activity = try #require(phone.activity(contextKey: "trip:s1"))
        #expect(activity.state == .active && activity.rev == nil && activity.contentState.objectValue?["delay"] == .int(2))
        #expect(phone.logged("applied [trip:s1]: started"))
        #expect(phone.logged("update token minted"))
        // The app registered it: the server's next change reaches the card by that token.
        #expect(await harness.until { (try? harness.app.store.starts.starts(contextKey: "trip:s1").first?.updateTokenAt) != nil })
        try harness.put("s1", delay: 5)
        #expect(await harness.until { phone.activity(contextKey: "trip:s1")?.contentState.objectValue?["delay"] == .int(5) })
    }

    @Test func withoutAllowThereIsNoUpdateTokenUntilTheUserAllows() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1", allowed: false)
        try harness.put("allow", delay: 1)
        try harness.start("allow")
        #expect(await harness.until { phone.activity(contextKey: "trip:allow") != nil })
        #expect(phone.activity(contextKey: "trip:allow")?.updateToken == nil)
        #expect(phone.logged("no update token until the user taps Allow"))
        try harness.put("allow", delay: 7)  // nothing can reach the card yet
        // Drained: the server sent what it was going to, and the fleet delivered it.
        #expect(await harness.until { harness.outboxIsEmpty })
        await harness.fleet.settle()
        #expect(phone.activity(contextKey: "trip:allow")?.contentState.objectValue?["delay"] == .int(1))

        harness.fleet.allow(device: "phone-1")
        // The new token is registered and the server catches the card up at once.
        #expect(await harness.until { phone.activity(contextKey: "trip:allow")?.contentState.objectValue?["delay"] == .int(7) })
        #expect(phone.logged("the user allowed Live Activities: update token minted"))
    }

    @Test func aStartNeedsIOS17Point2AnAlertAndDecodableAttributes() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let old = await harness.phone("old-phone", os: OSVersion(17, 0))
        #expect(old.startTokens.isEmpty, "no push-to-start token below 17.2")
        let start: [String: Any] = [
            "event": "start", "timestamp": harness.now, "attributes-type": "TripLiveActivityAttributes",
            "attributes": ["tripId": "x", "line": "S5", "destination": "F"], "alert": ["title": "T"],
            "content-state": [
                "currentStop": "A", "nextStop": "B", "nextStopTime": 803461320, "remainingTime": 60, "delay": 0, "occupancy": "low",
                "phase": "inProgress", "progress": 0.1,
            ],
        ]
        #expect(try await harness.raw(old.alertToken, start).status == 200)
        #expect(await harness.until { old.logged("push-to-start needs iOS 17.2+; this device runs 17.0") })

        let phone = await harness.phone("phone-1")
        let token = try #require(phone.startTokens["TripLiveActivityAttributes"])
        var noAlert = start
        noAlert.removeValue(forKey: "alert")
        #expect(try await harness.raw(token, noAlert).status == 200)
        var badAttributes = start
        badAttributes["attributes"] = ["tripId": "x", "line": 5, "destination": "F"]
        #expect(try await harness.raw(token, badAttributes).status == 200)
        #expect(await harness.until { phone.logged("attributes do not decode") })
        #expect(phone.logged("start without an alert title"))
        #expect(phone.logged("attributes do not decode: line must be a string, not 5"), "\(phone.messages())")
        #expect(phone.activities.isEmpty)
    }

    @Test func aChannelStartNeedsIOS18AndABroadcastCannotStart() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let old = await harness.phone("phone-17", os: OSVersion(17, 2))
        let new = await harness.phone("phone-18")
        try harness.put("chan", delay: 1)
        #expect(try harness.start("chan", useChannel: true) == ["queued", "queued"])
        #expect(await harness.until { new.activity(contextKey: "trip:chan") != nil && old.logged("input-push-channel needs iOS 18") })
        #expect(old.activities.isEmpty)
        let channel = try #require(new.activity(contextKey: "trip:chan")?.channelID)
        #expect(new.activity(contextKey: "trip:chan")?.updateToken == nil, "a channel start mints no update token")

        // Updates reach the card through the channel.
        try harness.put("chan", delay: 3)
        #expect(await harness.until { new.activity(contextKey: "trip:chan")?.contentState.objectValue?["delay"] == .int(3) })
        // A broadcast `start` is not a start.
        let payload = try JSONSerialization.data(withJSONObject: [
            "aps": [
                "event": "start", "timestamp": harness.now + 5, "attributes-type": "TripLiveActivityAttributes",
                "attributes": ["tripId": "y", "line": "S5", "destination": "F"], "alert": ["title": "T"], "content-state": [:],
            ]
        ])
        #expect(
            await harness.app.apns.broadcast(.init(bundleID: harness.sandbox.bundleID, channelID: channel, payload: Array(payload))).status == 200)
        #expect(await harness.until { new.logged("a broadcast push cannot start an activity") })
        #expect(new.activities.count == 1)
    }

    @Test func atMostFiveActivitiesAndAStartBudget() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        var rules = DeviceRules()
        rules.startBudget = 6
        let phone = await harness.phone("phone-1", rules: rules)
        for index in 1...7 {
            try harness.put("n\(index)", delay: index)
            try harness.start("n\(index)")
            _ = await harness.until {
                phone.log.filter {
                    $0.message.contains("started") || $0.message.contains("targetMaximumExceeded") || $0.message.contains("budget exceeded")
                }.count >= index
            }
            if index == 5 {
                // The user swipes one away, so the sixth fits and meets the start budget next.
                harness.fleet.dismiss(device: "phone-1", contextKey: "trip:n1")
            }
        }
        #expect(phone.activities.filter(\.isVisible).count == 5)
        #expect(phone.logged("push-to-start budget exceeded (6 starts in 60 minutes)"), "\(phone.messages())")
        try harness.put("n8", delay: 8)
        var tight = DeviceRules()
        tight.startBudget = 100
        let other = await harness.phone("phone-2", rules: tight)
        for index in 1...6 {
            try harness.put("m\(index)", delay: index)
            try harness.start("m\(index)")
        }
        #expect(await harness.until { other.logged("targetMaximumExceeded: 5 activities of this app already (at most 5)") })
        #expect(other.activities.filter(\.isVisible).count == 5)
    }

    @Test func aStartWithAPastStaleDateIsCreatedStaleAndNeverShown() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        let token = try #require(phone.startTokens["TripLiveActivityAttributes"])
        let start: [String: Any] = [
            "event": "start", "timestamp": harness.now, "attributes-type": "TripLiveActivityAttributes", "stale-date": harness.now - 1800,
            "attributes": ["tripId": "late", "line": "S5", "destination": "F"], "alert": ["title": "T"], "input-push-token": 1,
            "content-state": [
                "currentStop": "A", "nextStop": "B", "nextStopTime": 803461320, "remainingTime": 60, "delay": 0, "occupancy": "low",
                "phase": "inProgress", "progress": 0.1,
            ],
        ]
        #expect(try await harness.raw(token, start).status == 200)
        #expect(await harness.until { phone.logged("created stale and never presented") })
        #expect(phone.activities.first?.state == .stale && phone.activities.first?.isVisible == false)
        #expect(phone.card(contextKey: "trip:late") == nil)
    }

    @Test func aRotatedPushToStartTokenIsRegisteredAgainAndTheOldOneGets410() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        let old = try #require(phone.startTokens["TripLiveActivityAttributes"])
        harness.fleet.rotateStartToken(device: phone.id, type: "TripLiveActivityAttributes")
        let new = try #require(phone.startTokens["TripLiveActivityAttributes"])
        #expect(new != old && !harness.sandbox.isActive(token: old))
        #expect(
            await harness.until {
                (try? harness.app.store.tokens.activeTokens(userID: harness.userID).contains { $0.kind == .pushToStart && $0.token == new }) == true
            })
        try harness.put("rot", delay: 1)
        #expect(try harness.start("rot") == ["queued"])
        #expect(await harness.until { phone.activity(contextKey: "trip:rot") != nil })
        #expect(harness.sandbox.accepted(token: new).count == 1 && harness.sandbox.accepted(token: old).isEmpty)
    }
}
