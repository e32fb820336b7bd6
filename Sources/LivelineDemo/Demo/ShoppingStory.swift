import Foundation
import LivelineApps
import LivelineClient
import LivelineDevices
import LivelineModel
import LivelineShopping
import LivelineShoppingModel

/// The shopping trip (`docs/features/shopping.md`): Dennis puts things on the week's list and goes
/// shopping — his app starts his card, Jaqueline's phones get it by push-to-start — checks items
/// off from the Dynamic Island while she adds one from home, and leaves the shop: the card ends on
/// every phone.
struct ShoppingStory: DemoStory {
    let stage: DemoStage
    var name: String { "shopping" }

    static let groceries: [(String, Double)] = [
        ("Milk", 1.29), ("Bread", 2.50), ("Cheese", 3.49), ("Apples", 2.99), ("Coffee", 5.99), ("Tomatoes", 1.99), ("Butter", 1.89),
        ("Pasta", 1.49), ("Yoghurt", 0.99),
    ]
    static let fromHome = ["Chocolate", "Lemons", "Rice"]
    /// The most items Dennis checks off in one trip (at least three, then while more than two are open).
    static let checkOffs = 8

    func round(_ number: Int) async throws {
        let household = stage.household
        let dennis = household.dennisPhone
        let say = { (text: String) in stage.narrator.say(name, text) }
        guard let week = ShoppingWeek.containing(DemoNarrator.isoDay(stage.clock.now))?.monday else { return }
        let key = "shopping:\(dennis.owner.user.householdID):\(week)"
        await household.swipeAwayEnded(ShoppingActivityAttributes.typeName)

        // The list stays about as long as it is: new groceries only when little is open (the
        // decided dinners add their ingredients too), and check-offs until little is left.
        if (try await dennis.client.shoppingWeek(week).state?.open ?? 0) < 3 {
            let items = (0..<3).map { Self.groceries[(number * 3 + $0) % Self.groceries.count] }
            say("Dennis puts \(Self.list(items.map(\.0))) on the list for the week of \(week)")
            for (label, price) in items { try await dennis.client.addShoppingItem(week: week, label: label, price: price) }
            guard await stage.pause() else { return }
        }

        let session = try await dennis.client.startShopping(week: week)
        guard let state = try await dennis.client.shoppingWeek(week).state else { return }
        household.fleet.startLocally(
            device: dennis.id, attributesType: ShoppingActivityAttributes.typeName, attributes: ["week": .string(week)],
            contentState: try JSONValue(json: JSONEncoder().encode(state)), channelID: session.channelId)
        household.expect(key, on: household.phones)
        say(
            "Dennis goes shopping: his app starts the card\(session.channelId == nil ? "" : " on the week's broadcast channel"), "
                + "Jaqueline's phones get it by push-to-start")
        await stage.until(timeout: 15) { household.herPhones.allSatisfy { $0.device.activity(contextKey: key)?.state == .active } }

        for step in 0..<Self.checkOffs + 1 {
            guard await stage.pause() else { return }
            if step == 2 {
                let label = Self.fromHome[number % Self.fromHome.count]
                say("Jaqueline adds \(label) from home")
                try await household.herPhones[0].client.addShoppingItem(week: week, label: label, price: 1.79)
                continue
            }
            guard let shown = dennis.device.activity(contextKey: key).flatMap(Self.state), shown.open > 2 || step < 4,
                let first = shown.nextOpen.first
            else { break }
            say("Dennis checks off \(first.label) in the Dynamic Island")
            household.fleet.checkOffFromDynamicIsland(device: dennis.id, contextKey: key)
            try await dennis.client.shoppingHeartbeat(week: week)
        }
        guard await stage.pause() else { return }
        let left = try await dennis.client.endShopping(week: week)
        say(left.finished ? "Dennis leaves the shop: the trip is over, the card ends on every phone" : "Dennis leaves the shop")
        _ = await stage.pause(3)
    }

    /// The shopping card's state as the widget decodes it.
    static func state(_ activity: SimulatedActivity) -> ShoppingActivityAttributes.ContentState? {
        try? JSONDecoder().decode(ShoppingActivityAttributes.ContentState.self, from: activity.contentState.compactJSON)
    }

    /// `A, B and C`.
    static func list(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}
