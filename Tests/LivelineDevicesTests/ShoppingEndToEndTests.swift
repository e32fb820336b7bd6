import Foundation
import LivelineApps
import LivelineClient
import LivelineDevices
import LivelineModel
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import Testing

/// The shopping list end to end (`docs/features/shopping.md`): two members of a household, three simulated
/// iPhones, the server with its engine and the APNs sandbox over HTTP/2 + TLS, every call of the
/// apps through the real API.
@Suite struct ShoppingEndToEndTests {
    static let week = "2026-01-05"
    static let type = ShoppingActivityAttributes.typeName

    /// Dennis (the harness user) with his phone; Jaqueline with a phone on iOS 18 and an iPad on 17.2.
    struct Scene {
        let harness: DeviceHarness
        let jaqueline: (userID: UserID, bearer: String)
        let dennis: LivelineClient
        let her: LivelineClient
        let phones: [SimulatedDevice]
        let key: String

        static func make(faults: DeviceFaults = .none) async throws -> Scene {
            let harness = try DeviceHarness(faults: faults, serverOnClock: true) { $0.quietChangeDebounce = 0 }
            let (jaqueline, phones) = try await harness.couple()
            return Scene(
                harness: harness, jaqueline: jaqueline, dennis: harness.client(deviceID: "dennis-phone"),
                her: harness.client(bearer: jaqueline.bearer, deviceID: "jaqueline-phone"), phones: phones,
                key: "shopping:\(harness.householdID):\(week)"
            )
        }

        /// The server's truth, as the app pulls it.
        func truth() async throws -> ShoppingActivityAttributes.ContentState {
            try #require(try await dennis.shoppingWeek(ShoppingEndToEndTests.week).state)
        }

        /// What `phone`'s card shows, decoded as the widget decodes it.
        func shown(_ phone: SimulatedDevice) -> ShoppingActivityAttributes.ContentState? {
            phone.activity(contextKey: key).flatMap {
                try? JSONDecoder().decode(ShoppingActivityAttributes.ContentState.self, from: $0.contentState.compactJSON)
            }
        }

        /// Waits until every phone's card shows the server's truth.
        func converged(timeout: TimeInterval = 15) async throws -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                await harness.fleet.settle(timeout: 1)
                let truth = try await truth()
                if phones.allSatisfy({ shown($0) == truth }) { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        func item(_ label: String) async throws -> Int {
            try #require(try await dennis.shoppingWeek(ShoppingEndToEndTests.week).items?.first { $0.label == label }?.id)
        }

        /// Dennis starts shopping: the other members' devices get the card by push-to-start; his
        /// app starts its own card, following the week's channel.
        func dennisStartsShopping() async throws -> ShoppingSessionResponse {
            let session = try await dennis.startShopping(week: ShoppingEndToEndTests.week)
            let state = try #require(try await dennis.shoppingWeek(ShoppingEndToEndTests.week).state)
            harness.fleet.startLocally(
                device: "dennis-phone", attributesType: ShoppingEndToEndTests.type, attributes: ["week": .string(ShoppingEndToEndTests.week)],
                contentState: try JSONValue(json: JSONEncoder().encode(state)), channelID: session.channelId
            )
            return session
        }
    }

    @Test func twoPeopleThreePhonesOneList() async throws {
        let scene = try await Scene.make()
        defer { scene.harness.stop() }
        let (harness, dennis, her, key) = (scene.harness, scene.dennis, scene.her, scene.key)
        for (label, price) in [("Milch", 1.29), ("Brot", 2.5), ("Käse", nil), ("Äpfel", 3.0)] {
            try await dennis.addShoppingItem(week: Self.week, label: label, price: price)
        }

        // Dennis starts shopping → Jaqueline's phone and iPad get the card by push-to-start and register update tokens.
        let session = try await scene.dennisStartsShopping()
        #expect(session.starts.map(\.outcome).sorted() == ["queued", "queued"], "\(session.starts)")
        #expect(Set(session.starts.compactMap(\.deviceId)) == ["jaqueline-phone", "jaqueline-ipad"])
        let channel = try #require(session.channelId)
        #expect(
            await harness.until {
                scene.phones.dropFirst().allSatisfy { $0.activity(contextKey: key)?.updateToken != nil }
                    && scene.phones[0].activity(contextKey: key)?.channelID == channel
            })
        let updateTokens = try harness.app.store.tokens.activeTokens(householdID: harness.householdID).filter { $0.contextKey == key }
        #expect(Set(updateTokens.map(\.deviceID)) == ["jaqueline-phone", "jaqueline-ipad"], "both of her devices registered their update tokens")

        // She adds butter from home (not a shopper); he checks off the milk.
        try await her.addShoppingItem(week: Self.week, label: "Butter", price: 1.99)
        try await dennis.updateShoppingItem(id: try await scene.item("Milch"), UpdateShoppingItemRequest(done: true))
        #expect(try await scene.converged(), "\(scene.phones.map { "\($0.id): \(scene.shown($0).map { "rev \($0.rev)" } ?? "none")" })")
        let truth = try await scene.truth()
        #expect(truth.activeShoppers.map(\.name) == ["Dennis"], "adding from home does not make her a shopper")
        for phone in scene.phones {
            let card = try #require(phone.card(contextKey: key), "\(phone.id)")
            #expect(card.lockScreen.contains("Dennis hat Milch eingepackt"), "\(phone.id): \(card)")
            #expect(card.lockScreen.contains("4 open · 1 done of 5 · ~7.49 €"), "\(phone.id): \(card)")
            #expect(card.lockScreen.contains("next: Brot, Käse, Äpfel"), "\(phone.id): \(card)")
            #expect(card.lockScreen.contains("in the shop: Dennis"), "\(phone.id): \(card)")
            #expect(card.compactTrailing == "1/5")
        }

        // He checks off the bread from the Dynamic Island of his phone → reflected everywhere.
        harness.fleet.checkOffFromDynamicIsland(device: "dennis-phone", contextKey: key)
        #expect(try await scene.converged())
        #expect(scene.phones[0].logged("the user checked off Brot"))
        for phone in scene.phones {
            let card = try #require(phone.card(contextKey: key))
            #expect(card.lockScreen.contains("Dennis hat Brot eingepackt") && card.compactTrailing == "2/5", "\(phone.id): \(card)")
            #expect(card.expanded.contains("☐ Käse") && !card.expanded.contains("☐ Brot"), "\(phone.id): \(card)")
        }

        // Ten minutes later she goes shopping too: his phone shows the card already (no second start).
        harness.clock.advance(by: 10 * 60)
        let hers = try await her.startShopping(week: Self.week)
        #expect(hers.starts.first { $0.deviceId == "dennis-phone" }?.outcome == "alreadyStarted", "\(hers.starts)")
        #expect(try await scene.converged())
        #expect(try await scene.truth().activeShoppers.map(\.name) == ["Dennis", "Jaqueline"])

        // His heartbeat lapses (16 minutes without one): he leaves activeShoppers on every card.
        harness.clock.advance(by: 6 * 60 + 1)
        harness.app.engine.sweepLifecycle()
        #expect(try await scene.converged())
        #expect(try await scene.truth().activeShoppers.map(\.name) == ["Jaqueline"])
        for phone in scene.phones { #expect(phone.card(contextKey: key)?.lockScreen.contains("in the shop: Jaqueline") == true, "\(phone.id)") }

        // The last shopper leaves → `end` with ended: true on every card, then the cards are dismissed.
        let left = try await her.endShopping(week: Self.week)
        #expect(left.finished)
        #expect(await harness.until { scene.phones.allSatisfy { $0.activity(contextKey: key)?.state == .ended } })
        for phone in scene.phones {
            #expect(scene.shown(phone)?.ended == true, "\(phone.id)")
            #expect(phone.card(contextKey: key)?.lockScreen.contains("(ended)") == true)
        }
        harness.clock.advance(by: 16 * 60)
        for phone in scene.phones { harness.fleet.tick(device: phone.id) }
        #expect(scene.phones.allSatisfy { $0.activity(contextKey: key) == nil && $0.activities.last?.state == .dismissed })
        #expect(scene.phones.allSatisfy { !$0.messages(key).contains { $0.contains("SECOND card") } })
        #expect(await eventually { !harness.sandbox.channels().contains(channel) }, "the week's channel is deleted after the end")
    }

    @Test func withAFifthOfThePushesLostAndTheRestReorderedEveryPhoneEqualsTheTruthAfterItsNextPull() async throws {
        let scene = try await Scene.make()
        defer { scene.harness.stop() }
        let (harness, dennis, her, key) = (scene.harness, scene.dennis, scene.her, scene.key)
        for index in 0..<6 { try await dennis.addShoppingItem(week: Self.week, label: "Artikel \(index)", price: Double(index)) }
        _ = try await scene.dennisStartsShopping()
        #expect(await harness.until { scene.phones.allSatisfy { $0.activity(contextKey: key) != nil } })

        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 0.2, reorderWindow: 3))
        harness.fleet.setPullsOnWake(false)
        var random = SplitMix64(seed: 11)
        for step in 0..<60 {
            let client = random.next() % 2 == 0 ? dennis : her
            let items = try #require(try await dennis.shoppingWeek(Self.week).items)
            switch random.next() % 3 {
            case 0:
                try await client.addShoppingItem(week: Self.week, label: "Neu \(step)", price: Double(random.next() % 500) / 100)
            case 1 where items.contains { !$0.done }:
                let open = items.filter { !$0.done }
                try await client.updateShoppingItem(id: open[Int(random.next() % UInt64(open.count))].id, UpdateShoppingItemRequest(done: true))
            default:
                let item = items[Int(random.next() % UInt64(items.count))]
                try await client.updateShoppingItem(id: item.id, UpdateShoppingItemRequest(done: !item.done))
            }
        }
        // The last change is lost on its way to every phone, so every card is behind before its pull.
        #expect(
            await harness.until(timeout: 30) {
                (try? harness.app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
            })
        await harness.fleet.settle()
        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 1))
        try await her.addShoppingItem(week: Self.week, label: "Zuletzt", price: 0.99)
        #expect(
            await harness.until(timeout: 30) {
                (try? harness.app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
            })
        await harness.fleet.settle()
        let lost = scene.phones.flatMap(\.log).filter { $0.message.contains("lost on the way") }.count
        #expect(lost > 0)
        let truth = try await scene.truth()
        #expect(scene.phones.allSatisfy { scene.shown($0) != truth }, "every card is behind the truth before its pull")

        for phone in scene.phones { harness.fleet.foreground(device: phone.id) }
        await harness.fleet.settle()
        for phone in scene.phones {
            #expect(scene.shown(phone) == truth, "\(phone.id): rev \(scene.shown(phone)?.rev ?? -1) vs \(truth.rev)")
        }
    }
}
