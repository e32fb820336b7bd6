import Foundation
import LivelineModel
import Testing

/// A contract file reads back as it was written, and the file an app derives from its own Swift
/// types equals the one written by hand (`docs/contracts.md`, "Contract files").
@Suite struct ContractFileTests {
    /// A file with every kind of key: enum, optional Date added in version 2, an array of objects
    /// holding an enum, an object and an array of arrays, plus example, lifecycle and card.
    static let rich: ContractFile = {
        let level = ContractField.FieldType.enumeration(name: "Level", cases: ["low", "high"])
        let spot = ContractField.FieldType.object(name: "Spot", fields: [ContractField("lat", .double), ContractField("lon", .double)])
        let stop = ContractField.FieldType.object(
            name: "Stop",
            fields: [
                ContractField("name", .string, "the stop's name"), ContractField("level", level), ContractField("spot", spot, optional: true),
                ContractField("grid", .array(.array(.int))),
            ])
        let schema = ContractSchema(
            attributes: [ContractField("tripId", .string, "the timetable's id"), ContractField("line", .string)],
            contentState: [
                ContractField("phase", .enumeration(name: "Phase", cases: ["boarding", "riding", "arrived"])),
                ContractField("arrival", .date, optional: true, since: 2, "expected arrival"), ContractField("stops", .array(stop)),
                ContractField("delay", .int), ContractField("progress", .double), ContractField("late", .bool), ContractField("rev", .int),
            ])
        return ContractFile(
            typeName: "RideAttributes", version: 2, schema: schema, exampleAttributes: ["tripId": "T-1", "line": "RNV 5"],
            exampleContentState: [
                "phase": "riding", "arrival": 800_000_000, "delay": 2, "progress": .double(0.25), "late": false, "rev": 3,
                "stops": [["name": "Bismarckplatz", "level": "high", "spot": ["lat": .double(49.4), "lon": .double(8.69)], "grid": [[1, 2], []]]],
            ],
            lifecycle: ContractLifecycle(staleAfter: 900, dismissAfter: 3600, priorityBudget: 20, materialKeys: ["phase", "arrival"]),
            card: CardTemplate(lockScreen: "{attributes.line}: {phase}\nat {arrival}", compactLeading: "{phase}", expanded: "{{delay}} {delay}"))
    }()

    @Test func aRichFileReadsBackAsItWasWritten() throws {
        let text = Self.rich.json
        let parsed = try ContractFile.parse(text)
        #expect(parsed == Self.rich)
        #expect(parsed.json == text, "the same file writes the same text")
        #expect(parsed.fingerprint == Self.rich.schema.fingerprint(typeName: "RideAttributes"))
    }

    @Test func theTextListsOneKeyPerLineAndNamedTypesOnce() throws {
        let text = String(decoding: Self.rich.json, as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.prefix(4) == ["{", #""format": "liveline-contract/1","#, #""type": "RideAttributes","#, #""version": 2,"#])
        #expect(lines.contains(#"{"key": "arrival", "type": "Date", "optional": true, "since": 2, "summary": "expected arrival"},"#))
        #expect(lines.contains(#"{"key": "stops", "type": "[Stop]"},"#))
        #expect(lines.contains(#"{"key": "grid", "type": "[[Int]]"}"#))
        #expect(lines.contains(#""Phase": {"enum": ["boarding", "riding", "arrived"]},"#))
        #expect(
            lines.contains(#""lifecycle": {"staleAfter": 900, "dismissAfter": 3600, "priorityBudget": 20, "materialKeys": ["phase", "arrival"]},"#))
        #expect(lines.contains(#""fingerprint": "\#(Self.rich.fingerprint)","#))
        #expect(text.components(separatedBy: #""Stop": {"fields": ["#).count == 2, "Stop is defined once")
    }

    @Test func aFileWithoutOptionalPartsReadsBackWithout() throws {
        let bare = ContractFile(typeName: "Bare", version: 1, schema: ContractSchema(attributes: [], contentState: [ContractField("n", .int)]))
        let parsed = try ContractFile.parse(bare.json)
        #expect(parsed == bare)
        #expect(parsed.exampleAttributes == nil && parsed.lifecycle == nil && parsed.card == nil)
        #expect(!String(decoding: bare.json, as: UTF8.self).contains("types"))
    }

    /// The file as a person would write it for the app's types (`docs/contracts.md`).
    static let handWritten = """
        {
          "format": "liveline-contract/1",
          "type": "DeliveryActivityAttributes",
          "version": 1,
          "attributes": [{"key": "orderId", "type": "String"}, {"key": "restaurant", "type": "String"}],
          "contentState": [
            {"key": "status", "type": "Status"},
            {"key": "eta", "type": "Date", "optional": true},
            {"key": "items", "type": "[Item]"},
            {"key": "total", "type": "Double"},
            {"key": "paid", "type": "Bool"}
          ],
          "types": {
            "Item": {"fields": [{"key": "name", "type": "String"}, {"key": "quantity", "type": "Int"}]},
            "Status": {"enum": ["preparing", "onTheWay", "delivered"]}
          },
          "example": {
            "attributes": {"orderId": "A-17", "restaurant": "Pizzeria Roma"},
            "contentState": {"status": "onTheWay", "eta": 800000000, "items": [{"name": "Margherita", "quantity": 2}], "total": 21.5, "paid": true}
          }
        }
        """

    @Test func aFileDerivedFromSwiftTypesEqualsTheHandWrittenOne() throws {
        let derived = try ContractFile.derived(
            attributes: DeliveryActivityAttributes.self, contentState: DeliveryActivityAttributes.ContentState.self,
            example: (DeliveryActivityAttributes.example, DeliveryActivityAttributes.exampleContentState))
        let written = try ContractFile.parse(Data(Self.handWritten.utf8))
        #expect(derived == written)
        #expect(derived.typeName == "DeliveryActivityAttributes", "the type name defaults to the Swift name")
        #expect(derived.schema == DeliveryActivityAttributes.schema)
        let schema = try ContractSchema.derived(
            attributes: DeliveryActivityAttributes.self, contentState: DeliveryActivityAttributes.ContentState.self)
        #expect(derived.fingerprint == schema.fingerprint(typeName: "DeliveryActivityAttributes"))
        #expect(try ContractFile.parse(derived.json) == derived)
    }

    @Test func derivingTakesTheGivenNameVersionLifecycleAndCard() throws {
        let file = try ContractFile.derived(
            attributes: DeliveryActivityAttributes.self, contentState: DeliveryActivityAttributes.ContentState.self, typeName: "OrderAttributes",
            version: 3, lifecycle: ContractLifecycle(materialKeys: ["status"]), card: CardTemplate(lockScreen: "{status}"))
        #expect(file.typeName == "OrderAttributes" && file.version == 3)
        #expect(file.exampleAttributes == nil && file.exampleContentState == nil)
        #expect(try ContractFile.parse(file.json) == file)
        #expect(file.fingerprint != DeliveryActivityAttributes.schema.fingerprint(typeName: "DeliveryActivityAttributes"), "the name counts")
    }

    struct Dictionaries: Codable {
        var byName: [String: Int]
    }

    @Test func derivingTypesThatCannotBeReadThrowsTheDerivationError() {
        #expect(throws: SchemaDerivationError.self) {
            try ContractFile.derived(attributes: Dictionaries.self, contentState: DeliveryActivityAttributes.ContentState.self)
        }
    }

    /// Decodes `name` but encodes it as `label`: its example does not match its schema.
    struct Lopsided: Codable {
        enum CodingKeys: String, CodingKey { case name, label }
        var name: String

        init(name: String) { self.name = name }

        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .label)
        }
    }

    @Test func derivingAnExampleThatDoesNotMatchTheDecodingIsRefused() throws {
        let error = try #require(
            throws: ContractFileError.self,
            performing: {
                try ContractFile.derived(
                    attributes: Lopsided.self, contentState: DeliveryActivityAttributes.ContentState.self,
                    example: (Lopsided(name: "x"), DeliveryActivityAttributes.exampleContentState))
            })
        #expect(error.code == .exampleMismatch)
        #expect(error.field == "example.attributes.name")
    }

    @Test func nestedTypesGetNamesAFileCanHold() throws {
        let first = ContractField.FieldType.object(name: "Item", fields: [ContractField("a", .int)])
        let second = ContractField.FieldType.object(name: "Item", fields: [ContractField("b", .string)])
        let generic = ContractField.FieldType.enumeration(name: "Box<Int>", cases: ["x"])
        let file = ContractFile(
            typeName: "Twins", version: 1,
            schema: ContractSchema(
                attributes: [], contentState: [ContractField("one", first), ContractField("two", .array(second)), ContractField("three", generic)]))
        #expect(
            file.schema.contentState.map(\.type) == [
                .object(name: "Item", fields: [ContractField("a", .int)]), .array(.object(name: "Item2", fields: [ContractField("b", .string)])),
                .enumeration(name: "BoxInt", cases: ["x"]),
            ])
        #expect(try ContractFile.parse(file.json) == file)
    }

    @Test func aFileWithoutCardDrawsThePlainCardAndWithOneItsTemplate() {
        let bare = ContractFile(typeName: "RideAttributes", version: 2, schema: Self.rich.schema)
        let state: JSONValue = ["phase": "riding", "arrival": 800_000_000]
        #expect(
            bare.renderedCard(attributes: [:], contentState: state, badge: "")
                == CardTemplate.plain(typeName: "RideAttributes", attributes: [:], contentState: state, badge: ""))
        let drawn = Self.rich.renderedCard(attributes: ["line": "RNV 5"], contentState: state, badge: " (ended)")
        #expect(drawn.lockScreen == "RNV 5: riding (ended)\nat 06:13", "the schema makes arrival a time")
    }
}
