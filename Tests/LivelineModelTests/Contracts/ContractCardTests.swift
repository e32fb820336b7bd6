import Foundation
import LivelineModel
import Testing

/// A contract without a drawing of its own gets the plain card; one with a drawing is drawn by it.
/// The same for the context-key rule: none by default, each built-in contract its own.
@Suite struct ContractCardTests {
    struct ParcelAttributes: LiveActivityContract {
        struct ContentState: Codable, Hashable, Sendable {
            var stops: Int
            var courier: String?
        }
        var parcel: String

        static let typeName = "ParcelAttributes"
        static let version = 1
        static let schema = ContractSchema(
            attributes: [ContractField("parcel", .string, "the parcel")],
            contentState: [ContractField("stops", .int, "stops left"), ContractField("courier", .string, optional: true, "who brings it")])
        static let example = ParcelAttributes(parcel: "P-1")
        static let exampleContentState = ContentState(stops: 3, courier: "Ana")
    }

    @Test func aContractWithoutADrawingShowsItsKeysAndValues() throws {
        let registry = ContractRegistry([ParcelAttributes.self])
        let contract = try #require(registry.contract(named: "ParcelAttributes"))
        let drawn = contract.card(
            attributes: Data(#"{"parcel":"P-1"}"#.utf8), contentState: Data(#"{"stops":3,"courier":"Ana"}"#.utf8), badge: " (ended)")
        let card = try #require(drawn)
        #expect(card.lockScreen == "ParcelAttributes (ended)\ncourier: \"Ana\"\nstops: 3")
        #expect(card.expanded == "courier: \"Ana\"\nstops: 3")
        let undecodable = contract.card(attributes: Data(#"{"parcel":"P-1"}"#.utf8), contentState: Data(#"{"stops":"three"}"#.utf8), badge: "")
        #expect(undecodable == nil, "a state that does not decode draws nothing")
    }

    @Test func aBuiltInContractDrawsItsOwnCard() throws {
        let attributes = try JSONEncoder().encode(TripLiveActivityAttributes.example)
        let state = try JSONEncoder().encode(TripLiveActivityAttributes.exampleContentState)
        let card = try #require(TripLiveActivityAttributes.card(attributes: attributes, contentState: state, badge: ""))
        #expect(card.lockScreen.hasPrefix("🚆 RNV 5 → Bismarckplatz"))
    }

    @Test func eachBuiltInContractKnowsItsContextKeyAndOthersDoNot() throws {
        let encoder = JSONEncoder()
        let keys = try [
            ShoppingActivityAttributes.contextKey(attributes: encoder.encode(ShoppingActivityAttributes.example), userID: 2, householdID: 7),
            TripLiveActivityAttributes.contextKey(attributes: encoder.encode(TripLiveActivityAttributes.example), userID: 2, householdID: 7),
            CookSuggestActivityAttributes.contextKey(attributes: encoder.encode(CookSuggestActivityAttributes.example), userID: 2, householdID: 7),
            ParcelAttributes.contextKey(attributes: encoder.encode(ParcelAttributes.example), userID: 2, householdID: 7),
        ]
        #expect(
            keys == [
                "shopping:7:\(ShoppingActivityAttributes.example.week)", "trip:\(TripLiveActivityAttributes.example.tripId)",
                "cooksuggest:\(CookSuggestActivityAttributes.example.sessionId):2", nil,
            ])
        #expect(TripLiveActivityAttributes.contextKey(attributes: Data("{}".utf8), userID: 2, householdID: 7) == nil)
    }
}
