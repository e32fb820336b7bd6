import Foundation
import Testing

@testable import LivelineModel

/// A schema's fingerprint follows what decoding depends on, and nothing else (`docs/contracts.md`,
/// "Fingerprint").
@Suite struct ContractSchemaFingerprintTests {
    static let schema = DeliveryActivityAttributes.schema
    static let name = "DeliveryActivityAttributes"

    /// `schema` with content-state field `index` changed by `change`.
    static func changed(_ index: Int, _ change: (inout ContractField) -> Void) -> ContractSchema {
        var copy = schema
        change(&copy.contentState[index])
        return copy
    }

    @Test func fnv1aGivesThePublishedTestVectors() {
        // The FNV-1a 64-bit vectors of draft-eastlake-fnv (and of the reference code).
        #expect(FNV1a.hex("".utf8) == "cbf29ce484222325")
        #expect(FNV1a.hex("a".utf8) == "af63dc4c8601ec8c")
        #expect(FNV1a.hex("foobar".utf8) == "85944171f73967e8")
    }

    /// Pinned: an app built today and a server built later must compute the same value. The value
    /// was computed from the text below by an independent FNV-1a implementation.
    @Test func theFingerprintIsTheHashOfTheDocumentedCanonicalText() {
        let text = Self.schema.fingerprintText(typeName: Self.name)
        #expect(
            text == """
                liveline-contract-fingerprint/1
                type "DeliveryActivityAttributes"
                attributes {"orderId":String,"restaurant":String}
                contentState {"eta":Date?,"items":[{"name":String,"quantity":Int}],"paid":Bool,"status":enum("delivered","onTheWay","preparing"),"total":Double}
                """)
        #expect(Self.schema.fingerprint(typeName: Self.name) == "76384f77ff2fddad")
        #expect(FNV1a.hex(text.utf8) == Self.schema.fingerprint(typeName: Self.name))
    }

    @Test func reorderingKeysOrEditingSummariesSinceAndNamesKeepsIt() {
        let original = Self.schema.fingerprint(typeName: Self.name)
        var reordered = Self.schema
        reordered.contentState.reverse()
        reordered.attributes.reverse()
        #expect(reordered.fingerprint(typeName: Self.name) == original)
        let annotated = Self.changed(1) {
            $0.summary = "when it arrives"
            $0.since = 2
        }
        #expect(annotated.fingerprint(typeName: Self.name) == original)
        let renamed = Self.changed(0) { $0.type = .enumeration(name: "OrderStatus", cases: ["delivered", "preparing", "onTheWay"]) }
        #expect(renamed.fingerprint(typeName: Self.name) == original, "enum names and case order do not decode")
        let renamedObject = Self.changed(2) {
            $0.type = .array(.object(name: "Line", fields: [ContractField("quantity", .int), ContractField("name", .string)]))
        }
        #expect(renamedObject.fingerprint(typeName: Self.name) == original)
    }

    @Test(arguments: [
        ("a type", ContractSchemaFingerprintTests.changed(3) { $0.type = .int }),
        ("an optionality", ContractSchemaFingerprintTests.changed(1) { $0.isOptional = false }),
        ("a key", ContractSchemaFingerprintTests.changed(4) { $0.key = "isPaid" }),
        (
            "an enum case",
            ContractSchemaFingerprintTests.changed(0) {
                $0.type = .enumeration(name: "Status", cases: ["preparing", "onTheWay", "delivered", "lost"])
            }
        ),
        (
            "a nested key's type",
            ContractSchemaFingerprintTests.changed(2) {
                $0.type = .array(.object(name: "Item", fields: [ContractField("name", .string), ContractField("quantity", .double)]))
            }
        ),
        (
            "a side",
            ContractSchema(
                attributes: ContractSchemaFingerprintTests.schema.attributes + [ContractSchemaFingerprintTests.schema.contentState[4]],
                contentState: Array(ContractSchemaFingerprintTests.schema.contentState.prefix(4)))
        ),
    ])
    func aChangeThatDecodingSeesChangesIt(_ what: String, _ schema: ContractSchema) {
        #expect(schema.fingerprint(typeName: Self.name) != Self.schema.fingerprint(typeName: Self.name), "changing \(what)")
    }

    @Test func theTypeNameChangesItAndQuotesAreEscaped() {
        #expect(Self.schema.fingerprint(typeName: "Other") != Self.schema.fingerprint(typeName: Self.name))
        let tricky = ContractSchema(attributes: [ContractField(#"a"b\c"#, .string)], contentState: [])
        #expect(tricky.fingerprintText(typeName: "T").contains(#"attributes {"a\"b\\c":String}"#))
    }
}
