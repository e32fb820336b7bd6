import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineContractChecks
import Testing

/// The meal-planning contract keeps the rules of every contract against its golden fixtures
/// (`docs/contracts.md`, "Versioning and compatibility") and its own: the keys of §2, every change
/// material (the default) and a context key per viewer.
struct CookSuggestActivityAttributesTests {
    typealias Contract = CookSuggestActivityAttributes

    /// 2026-06-18 12:00 UTC: within 8 h of the fixture's timestamp.
    static let now = Date(timeIntervalSince1970: 1_781_784_000)

    static func fixtures() throws -> URL { try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)) }

    static func json(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }

    @Test func keepsTheRulesOfEveryContract() throws {
        let examples = ContractChecks.examples(besideTestFile: #filePath)
        let problems = try ContractChecks.everyRule(Contract.self, fixtures: Self.fixtures(), examples: examples, now: Self.now)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func anEmptyPartnerIsSentAsNull() throws {
        let partner = String(decoding: try Self.json(Contract(sessionId: "cs_1", date: "2026-06-18")), as: UTF8.self)
        #expect(partner.contains("\"partnerName\":null"))
    }

    @Test func everyChangeButTheRevisionIsMaterial() throws {
        let registry = ContractRegistry([Contract.self])
        var state = Contract.exampleContentState
        let before = try Self.json(state)
        state.rev += 1
        #expect(registry.materialChange(typeName: Contract.typeName, old: before, new: try Self.json(state)) == nil)
        state.partnerReady.toggle()
        #expect(registry.materialChange(typeName: Contract.typeName, old: before, new: try Self.json(state)) != nil)
    }

    @Test func theContextKeyIsTheSessionsForTheViewer() throws {
        let key = Contract.contextKey(attributes: try Self.json(Contract.example), userID: 2, householdID: 7)
        #expect(key == "cooksuggest:\(Contract.example.sessionId):2")
    }
}
