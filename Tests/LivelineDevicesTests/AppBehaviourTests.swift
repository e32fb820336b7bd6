import Foundation
import LivelineCards
import LivelineCookSuggestModel
import LivelineDevices
import LivelineModel
import LivelineShoppingModel
import LivelineTransitModel
import Testing

/// The simulated app acts like the real one (`docs/devices.md`): it registers its tokens, pulls
/// `?since_rev=` when a push wakes it, and reports receipts the server's timeline shows.
@Suite struct AppBehaviourTests {
    @Test func theAppRegistersItsTokensAtLaunch() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        let tokens = try harness.app.store.tokens.activeTokens(userID: harness.userID)
        #expect(tokens.contains { $0.kind == .alert && $0.token == phone.alertToken && $0.deviceID == "phone-1" })
        #expect(
            Set(tokens.filter { $0.kind == .pushToStart }.compactMap(\.attributesType)) == Set(ContractRegistry.builtIn.names), "\(phone.messages())")
        #expect(phone.tokens.allSatisfy { harness.sandbox.isActive(token: $0) })
    }

    @Test func aPushWakesTheAppWhichPullsAndReportsTheRevision() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        // Shopping carries a rev: the receipts say which one the card shows.
        var state = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ShoppingActivityAttributes.exampleContentState)) as! [String: Any]
        state.removeValue(forKey: "rev")
        let key = "shopping:\(harness.householdID):2026-01-05"
        let put = { (open: Int) throws in
            state["open"] = open
            let body = try JSONSerialization.data(withJSONObject: [
                "type": "ShoppingActivityAttributes", "attributes": ["week": "2026-01-05"], "contentState": state,
            ])
            #expect(try harness.admin("PUT", "/v1/contexts/\(key)", json: String(decoding: body, as: UTF8.self)).status < 300)
        }
        try put(4)
        let started = try harness.admin("POST", "/v1/contexts/\(key)/start", json: #"{"userIds":[\#(harness.userID)],"alert":{"title":"Shopping"}}"#)
        #expect(started.status == 200)
        #expect(await harness.until { phone.activity(contextKey: key)?.updateToken != nil })
        try put(3)
        #expect(await harness.until { phone.activity(contextKey: key)?.rev == 2 })
        #expect(await harness.until { phone.logged("app pulled: unchanged at rev 2") }, "the push woke the app, its pull found nothing newer")
        #expect(
            await harness.until {
                (try? harness.admin("GET", "/v1/contexts/\(key)/timeline").json?["acknowledged"] as? [String: Int]) == ["phone-1": 2]
            })
        let card = try #require(phone.card(contextKey: key))
        #expect(card.lockScreen.contains("🛒 Week of 2026-01-05") && card.lockScreen.contains("3 open"))
        #expect(card.compactLeading == "🛒 3")
    }

    @Test func eachContractRendersItsLockScreenAndIsland() throws {
        let trip = SimulatedActivity(
            id: "a", attributesType: TripLiveActivityAttributes.typeName,
            attributes: try JSONValue(json: JSONEncoder().encode(TripLiveActivityAttributes.example)), contextKey: "trip:1",
            contentState: try JSONValue(json: JSONEncoder().encode(TripLiveActivityAttributes.exampleContentState)), timestamp: 1,
            state: .active, startedAt: Date(), staleAt: nil, endedAt: nil, dismissAt: nil, updateToken: nil, channelID: nil,
            awaitingAllow: false, priorityLedger: [], presented: true
        )
        let card = try #require(CardRenderer.render(trip, registry: .builtIn))
        let example = TripLiveActivityAttributes.exampleContentState
        #expect(card.lockScreen.hasPrefix("🚆 \(TripLiveActivityAttributes.example.line) → \(TripLiveActivityAttributes.example.destination)"))
        #expect(card.compactLeading == "🚆 \(TripLiveActivityAttributes.example.line)")
        #expect(card.expanded.contains("\(example.currentStop) → \(example.nextStop)"))
        var cook = trip
        cook.attributesType = CookSuggestActivityAttributes.typeName
        cook.attributes = try JSONValue(json: JSONEncoder().encode(CookSuggestActivityAttributes.example))
        cook.contentState = try JSONValue(json: JSONEncoder().encode(CookSuggestActivityAttributes.exampleContentState))
        let cookCard = try #require(CardRenderer.render(cook, registry: .builtIn))
        #expect(cookCard.lockScreen.hasPrefix("🍳 \(CookSuggestActivityAttributes.exampleContentState.statusLabel)"))
        var broken = trip
        broken.contentState = ["currentStop": "A"]
        #expect(CardRenderer.render(broken, registry: .builtIn) == nil, "a state that does not decode renders nothing")
    }

    /// A button of this test only: on a trip card, asks for the user's inbox.
    static let inbox = CardButton(name: "open the inbox") { activity in
        guard activity.attributesType == TripLiveActivityAttributes.typeName else { return nil }
        let intent = AppIntent(name: "opened the inbox") { client, _ in "\(try await client.notifications().count) notifications" }
        return CardButton.Press(pressed: "the user pressed the inbox button", intent: intent)
    }

    @Test func aButtonOnTheCardRunsItsIntentThroughTheAPIThenThePullOfTheCard() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        try harness.put("button", delay: 1)
        try harness.start("button")
        #expect(await harness.until { phone.activity(contextKey: "trip:button")?.updateToken != nil }, "\(phone.messages())")
        let before = phone.log.count

        harness.fleet.press(Self.inbox, device: "phone-1", contextKey: "trip:button")
        #expect(await harness.until { phone.logged("app opened the inbox through the API: 0 notifications") }, "\(phone.messages())")
        let after = phone.log.dropFirst(before).map(\.message)
        let intent = try #require(after.firstIndex { $0.hasPrefix("app opened the inbox") })
        #expect(after.contains("the user pressed the inbox button"))
        #expect(
            await harness.until { phone.log.dropFirst(before + intent + 1).contains { $0.message.contains("pull") } },
            "the app pulls the card after the intent: \(phone.messages())")

        // A card without that button: only a line in the log, no call.
        harness.fleet.press(CardButton(name: "check off") { _ in nil }, device: "phone-1", contextKey: "trip:button")
        #expect(await harness.until { phone.logged("nothing to check off: the card shows no such button") })
    }
}
