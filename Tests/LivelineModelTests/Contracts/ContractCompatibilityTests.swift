import Foundation
import LivelineModel
import Testing

/// Contract evolution (`docs/sdk.md`, `docs/contracts.md`): every contract has a version and a
/// golden fixture per version; an older payload must still decode, and a newer payload must still
/// carry every key an older app reads.
struct ContractCompatibilityTests {
    static let names = ContractRegistry.known.names

    @Test(arguments: names)
    func everyVersionHasAGoldenFixture(_ name: String) throws {
        let contract = try #require(ContractRegistry.known.contract(named: name))
        #expect(try Fixture.versions(name) == Array(1...contract.version))
    }

    @Test(arguments: names)
    func currentFixtureDecodesAndReencodesLosslessly(_ name: String) throws {
        func check<C: LiveActivityContract>(_: C.Type) throws {
            let fixture = try Fixture.data(C.typeName, version: C.version)
            let payload = try JSONDecoder().decode(LiveActivityPayload<C>.self, from: fixture)
            let reencoded = try JSONValue(json: payload.encoded())
            #expect(reencoded == (try JSONValue(json: fixture)))
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        try check(contract)
    }

    @Test(arguments: names)
    func everyOlderFixtureStillDecodesAndItsKeysAreStillSent(_ name: String) throws {
        func check<C: LiveActivityContract>(_: C.Type) throws {
            let current = try JSONValue(
                json: LiveActivityPayload<C>.start(
                    attributes: C.example, contentState: C.exampleContentState, alert: LiveActivityAlert(title: "t"), timestamp: .exampleNow
                ).encoded())
            for version in try Fixture.versions(C.typeName) {
                let fixture = try Fixture.data(C.typeName, version: version)
                // An older payload (sent by an older server, or stored) decodes with today's type.
                #expect(throws: Never.self, "v\(version)") { try JSONDecoder().decode(LiveActivityPayload<C>.self, from: fixture) }
                // An older app decodes today's payload only if every key it knew is still sent.
                for member in ["content-state", "attributes"] {
                    let oldKeys = Set(try JSONEdit.object(fixture)["aps"]?.objectValue?[member]?.objectValue?.keys ?? [:].keys)
                    let newKeys = Set(current.objectValue?["aps"]?.objectValue?[member]?.objectValue?.keys ?? [:].keys)
                    #expect(oldKeys.isSubset(of: newKeys), "v\(version) \(member) keys no longer sent: \(oldKeys.subtracting(newKeys))")
                }
            }
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        try check(contract)
    }

    @Test(arguments: names)
    func payloadFromBeforeOptionalFieldsExistedStillDecodes(_ name: String) throws {
        // A newer optional field is simply absent in an older payload: remove every optional key
        // from the fixture (the shape of a v1 payload without fields added later).
        func check<C: LiveActivityContract>(_: C.Type) throws {
            let fixture = try Fixture.data(C.typeName, version: 1)
            let optionalState = Set(C.schema.contentState.filter(\.isOptional).map(\.key))
            var old = try JSONEdit.editing(fixture, "content-state") { state in
                for key in optionalState { state[key] = nil }
            }
            let optionalAttributes = Set(C.schema.attributes.filter(\.isOptional).map(\.key))
            old = try JSONEdit.editing(old, "attributes") { attributes in
                for key in optionalAttributes { attributes[key] = nil }
            }
            let payload = try JSONDecoder().decode(LiveActivityPayload<C>.self, from: old)
            #expect(payload.attributes != nil)
        }
        let contract = try #require(ContractRegistry.known.contract(named: name))
        try check(contract)
    }

    @Test(arguments: names)
    func fieldsAddedAfterTheFirstVersionAreOptional(_ name: String) throws {
        let contract = try #require(ContractRegistry.known.contract(named: name))
        let fields = contract.schema.attributes + contract.schema.contentState
        for field in fields where field.since > 1 {
            #expect(field.isOptional, "\(name).\(field.key) was added in v\(field.since) and must be optional")
        }
        #expect(fields.allSatisfy { (1...contract.version).contains($0.since) })
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
        let v1 = try Fixture.data("ShoppingActivityAttributes", version: 1)
        let decoded = try JSONDecoder().decode(Envelope.self, from: v1)
        #expect(decoded.aps.state.rev == 31)
        #expect(decoded.aps.state.note == nil)
    }

    @Test func fixturesAreTheExamplePayloadsUsersCheck() throws {
        let examples = try Fixture.examplePayloads()
        #expect(examples.count >= 3)
        let fixtures = try ContractRegistry.known.names.map { try JSONValue(json: Fixture.data($0, version: 1)) }
        for fixture in fixtures {
            let matches = try examples.filter { try JSONValue(json: Data(contentsOf: $0)) == fixture }
            #expect(matches.count == 1, "each v1 fixture has its copy in examples/payloads")
        }
    }
}
