import Foundation
import LivelineModel
import Testing

/// Which changes are material per contract (`docs/engine.md`, "Budgets and priority").
struct MaterialityTests {
    static func json(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }

    /// The spec's rule for trips (`docs/features/transit.md`, "What is pushed"): phase and delay
    /// changes of a minute or more are material; a new stop goes at priority 5.
    @Test func tripPhaseAndDelayAreMaterialTheRestIsQuiet() throws {
        let base = TripLiveActivityAttributes.exampleContentState
        var quiet = base
        quiet.remainingTime += 60
        quiet.progress = 0.9
        quiet.occupancy = base.occupancy == .low ? .high : .low
        #expect(TripLiveActivityAttributes.materialChange(from: base, to: quiet) == nil)
        var late = base
        late.delay += 1
        #expect(TripLiveActivityAttributes.materialChange(from: base, to: late)?.contains("delay") == true)
        var moved = base
        moved.currentStop = "Somewhere else"
        moved.nextStop = "Further on"
        #expect(TripLiveActivityAttributes.materialChange(from: base, to: moved) == nil)
        var arrived = base
        arrived.phase = .arrived
        #expect(TripLiveActivityAttributes.materialChange(from: base, to: arrived)?.contains("phase") == true)
    }

    @Test func shoppingCheckOffsAndAdditionsAreMaterialPricesAreNot() throws {
        let base = ShoppingActivityAttributes.exampleContentState
        var priced = base
        priced.estEur += 3.5
        priced.lastEventText = "Dennis priced milk"
        #expect(ShoppingActivityAttributes.materialChange(from: base, to: priced) == nil)
        var checked = base
        checked.done += 1
        checked.open -= 1
        #expect(ShoppingActivityAttributes.materialChange(from: base, to: checked)?.contains("checked off") == true)
        var added = base
        added.total += 1
        added.open += 1
        #expect(ShoppingActivityAttributes.materialChange(from: base, to: added)?.contains("added") == true)
    }

    @Test func shoppingAShopperJoiningOrLeavingIsMaterial() throws {
        let base = ShoppingActivityAttributes.exampleContentState
        var joined = base
        joined.activeShoppers.append(Shopper(name: "Kim", avatarTint: "mint", userId: 77))
        #expect(ShoppingActivityAttributes.materialChange(from: base, to: joined) == "shopper 77 joined")
        #expect(ShoppingActivityAttributes.materialChange(from: joined, to: base) == "shopper 77 left")
        var renamed = base
        renamed.activeShoppers = renamed.activeShoppers.map { Shopper(name: $0.name + "!", avatarTint: $0.avatarTint, userId: $0.userId) }
        #expect(ShoppingActivityAttributes.materialChange(from: base, to: renamed) == nil, "the same people, renamed: quiet")
    }

    @Test func theRegistryComparesJSONIgnoringRevAndTreatsTheFirstPushAsMaterial() throws {
        let registry = ContractRegistry.known
        var state = ShoppingActivityAttributes.exampleContentState
        let old = try Self.json(state)
        state.rev += 5
        #expect(
            registry.materialChange(typeName: ShoppingActivityAttributes.typeName, old: old, new: try Self.json(state)) == nil,
            "rev alone is no change")
        #expect(registry.materialChange(typeName: ShoppingActivityAttributes.typeName, old: nil, new: old) == "the first push")
        #expect(registry.materialChange(typeName: ShoppingActivityAttributes.typeName, old: Data("{}".utf8), new: old) == "the first push")
        // Cook-suggest: every change of state is material (the default).
        var cook = CookSuggestActivityAttributes.exampleContentState
        let before = try Self.json(cook)
        cook.rev += 1
        #expect(registry.materialChange(typeName: CookSuggestActivityAttributes.typeName, old: before, new: try Self.json(cook)) == nil)
    }
}
