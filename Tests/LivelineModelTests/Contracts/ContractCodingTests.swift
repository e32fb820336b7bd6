import Foundation
import LivelineModel
import Testing

/// The contract types encode exactly the keys of `docs/contracts.md`, with default strategies and
/// `null` for empty optionals, and their schema says what their `Codable` does.
struct ContractCodingTests {
    static let names = ContractRegistry.known.names

    @Test func registryHoldsTheThreeContractsOfTheSpec() {
        #expect(Self.names == ["ShoppingActivityAttributes", "CookSuggestActivityAttributes", "TripLiveActivityAttributes"])
    }

    @Test(arguments: names)
    func typeNameIsTheSwiftTypeName(_ name: String) throws {
        let contract = try #require(ContractRegistry.known.contract(named: name))
        #expect(String(describing: contract) == name)
        #expect(contract.version >= 1)
    }

    @Test(arguments: names)
    func encodedKeysAreExactlyTheSchemaKeys(_ name: String) throws {
        func check<C: LiveActivityContract>(_: C.Type) throws {
            let state = try #require(try JSONValue(json: JSONEncoder().encode(C.exampleContentState)).objectValue)
            #expect(Set(state.keys) == Set(C.schema.contentState.map(\.key)))
            let attributes = try #require(try JSONValue(json: JSONEncoder().encode(C.example)).objectValue)
            #expect(Set(attributes.keys) == Set(C.schema.attributes.map(\.key)))
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        try check(contract)
    }

    @Test(arguments: names)
    func missingKeyFailsToDecodeExactlyWhenTheSchemaSaysRequired(_ name: String) throws {
        func check<C: LiveActivityContract>(_: C.Type) throws {
            let encoded = try #require(try JSONValue(json: JSONEncoder().encode(C.exampleContentState)).objectValue)
            for field in C.schema.contentState {
                var copy = encoded
                copy[field.key] = nil
                let decodes = (try? JSONDecoder().decode(C.ContentState.self, from: JSONValue.object(copy).compactJSON)) != nil
                #expect(decodes == field.isOptional, "\(name).ContentState.\(field.key): decodes without it = \(decodes)")
            }
            let attributes = try #require(try JSONValue(json: JSONEncoder().encode(C.example)).objectValue)
            for field in C.schema.attributes {
                var copy = attributes
                copy[field.key] = nil
                let decodes = (try? JSONDecoder().decode(C.self, from: JSONValue.object(copy).compactJSON)) != nil
                #expect(decodes == field.isOptional, "\(name).\(field.key): decodes without it = \(decodes)")
            }
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        try check(contract)
    }

    @Test(arguments: names)
    func emptyOptionalsAreEncodedAsNull(_ name: String) throws {
        func check<C: LiveActivityContract>(_: C.Type) throws {
            var state = try #require(try JSONValue(json: JSONEncoder().encode(C.exampleContentState)).objectValue)
            for field in C.schema.contentState where field.isOptional { state[field.key] = .null }
            let decoded = try JSONDecoder().decode(C.ContentState.self, from: JSONValue.object(state).compactJSON)
            let again = try #require(try JSONValue(json: JSONEncoder().encode(decoded)).objectValue)
            for field in C.schema.contentState where field.isOptional {
                #expect(again[field.key] == .null, "\(field.key) must be sent as null, not left out")
            }
            #expect(Set(again.keys) == Set(C.schema.contentState.map(\.key)))
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        try check(contract)
    }

    @Test func shoppingEncodesNilStoryFieldsAsNull() throws {
        let empty = ShoppingActivityAttributes.ContentState(open: 0, done: 0, total: 0, estEur: 0, estPriced: 0, rev: 1)
        let json = String(decoding: try JSONEncoder().encode(empty), as: UTF8.self)
        for key in ["lastItem", "lastActorUserId", "lastActorName", "lastActorAvatarTint", "lastActorEmoji", "lastEventText", "updatedAt", "ended"] {
            #expect(json.contains("\"\(key)\":null"), "\(key) missing from \(json)")
        }
        let partner = String(decoding: try JSONEncoder().encode(CookSuggestActivityAttributes(sessionId: "cs_1", date: "2026-06-18")), as: UTF8.self)
        #expect(partner.contains("\"partnerName\":null"))
    }

    @Test func tripDateUsesSwiftsDefaultSecondsSince2001() throws {
        let state = TripLiveActivityAttributes.exampleContentState
        let object = try #require(try JSONValue(json: JSONEncoder().encode(state)).objectValue)
        #expect(object["nextStopTime"] == .int(803_461_320))
        #expect(object["occupancy"] == .string("medium"))
        #expect(object["phase"] == .string("inProgress"))
        #expect(state.nextStopTime == Date(timeIntervalSince1970: 1_781_768_520))
    }

    @Test(arguments: names)
    func exampleValuesPassTheKeyByKeyCheck(_ name: String) throws {
        func check<C: LiveActivityContract>(_: C.Type) throws -> [PayloadProblem] {
            try C.checkContentState(json: JSONEncoder().encode(C.exampleContentState), now: .exampleNow)
                + C.checkAttributes(json: JSONEncoder().encode(C.example), now: .exampleNow)
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        let problems = try check(contract)
        #expect(problems.isEmpty, "\(problems)")
    }
}
