import Foundation
import LivelineModel
import Testing

/// A contract without a drawing of its own gets the plain card, and no context key without a rule
/// of its own (the built-in contracts' drawings and rules are tested in their models' tests).
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

    @Test func aContractWithoutAContextKeyRuleHasNone() throws {
        #expect(ParcelAttributes.contextKey(attributes: try JSONEncoder().encode(ParcelAttributes.example), userID: 2, householdID: 7) == nil)
    }
}
