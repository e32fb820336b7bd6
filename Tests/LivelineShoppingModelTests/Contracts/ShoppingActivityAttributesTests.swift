import Foundation
import LivelineModel
import LivelineShoppingModel
import LivelineContractChecks
import Testing

/// The shopping contract keeps the rules of every contract against its golden fixtures
/// (`docs/contracts.md`, "Versioning and compatibility") and its own: the keys of §1, its
/// materiality and its context key.
struct ShoppingActivityAttributesTests {
    typealias Contract = ShoppingActivityAttributes

    /// 2026-06-18 12:00 UTC: within 8 h of the fixture's timestamp.
    static let now = Date(timeIntervalSince1970: 1_781_784_000)

    static func fixtures() throws -> URL { try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)) }

    static func json(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }

    @Test func keepsTheRulesOfEveryContract() throws {
        let examples = ContractChecks.examples(besideTestFile: #filePath)
        let problems = try ContractChecks.everyRule(Contract.self, fixtures: Self.fixtures(), examples: examples, now: Self.now)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func encodesNilStoryFieldsAsNull() throws {
        let empty = Contract.ContentState(open: 0, done: 0, total: 0, estEur: 0, estPriced: 0, rev: 1)
        let json = String(decoding: try JSONEncoder().encode(empty), as: UTF8.self)
        for key in ["lastItem", "lastActorUserId", "lastActorName", "lastActorAvatarTint", "lastActorEmoji", "lastEventText", "updatedAt", "ended"] {
            #expect(json.contains("\"\(key)\":null"), "\(key) missing from \(json)")
        }
    }

    @Test func addingAnOptionalFieldKeepsV1FixturesDecodable() throws {
        // The rule in action: a v2 content state with one more optional key reads the v1 fixture.
        struct ShoppingStateV2: Decodable {
            var open: Int
            var rev: Int
            var note: String?
        }
        struct Envelope: Decodable {
            struct APS: Decodable {
                var state: ShoppingStateV2
                enum CodingKeys: String, CodingKey { case state = "content-state" }
            }
            var aps: APS
        }
        let v1 = try ContractChecks.fixture(Contract.typeName, version: 1, in: Self.fixtures())
        let decoded = try JSONDecoder().decode(Envelope.self, from: v1)
        #expect(decoded.aps.state.rev == 31)
        #expect(decoded.aps.state.note == nil)
    }

    @Test func checkOffsAndAdditionsAreMaterialPricesAreNot() throws {
        let base = Contract.exampleContentState
        var priced = base
        priced.estEur += 3.5
        priced.lastEventText = "Dennis priced milk"
        #expect(Contract.materialChange(from: base, to: priced) == nil)
        var checked = base
        checked.done += 1
        checked.open -= 1
        #expect(Contract.materialChange(from: base, to: checked)?.contains("checked off") == true)
        var added = base
        added.total += 1
        added.open += 1
        #expect(Contract.materialChange(from: base, to: added)?.contains("added") == true)
    }

    @Test func aShopperJoiningOrLeavingIsMaterial() throws {
        let base = Contract.exampleContentState
        var joined = base
        joined.activeShoppers.append(Shopper(name: "Kim", avatarTint: "mint", userId: 77))
        #expect(Contract.materialChange(from: base, to: joined) == "shopper 77 joined")
        #expect(Contract.materialChange(from: joined, to: base) == "shopper 77 left")
        var renamed = base
        renamed.activeShoppers = renamed.activeShoppers.map { Shopper(name: $0.name + "!", avatarTint: $0.avatarTint, userId: $0.userId) }
        #expect(Contract.materialChange(from: base, to: renamed) == nil, "the same people, renamed: quiet")
    }

    @Test func theRegistryComparesJSONIgnoringRevAndTreatsTheFirstPushAsMaterial() throws {
        let registry = ContractRegistry([Contract.self])
        var state = Contract.exampleContentState
        let old = try Self.json(state)
        state.rev += 5
        #expect(registry.materialChange(typeName: Contract.typeName, old: old, new: try Self.json(state)) == nil, "rev alone is no change")
        #expect(registry.materialChange(typeName: Contract.typeName, old: nil, new: old) == "the first push")
        #expect(registry.materialChange(typeName: Contract.typeName, old: Data("{}".utf8), new: old) == "the first push")
    }

    @Test func theContextKeyIsTheHouseholdsWeek() throws {
        let key = Contract.contextKey(attributes: try Self.json(Contract.example), userID: 2, householdID: 7)
        #expect(key == "shopping:7:\(Contract.example.week)")
    }
}
