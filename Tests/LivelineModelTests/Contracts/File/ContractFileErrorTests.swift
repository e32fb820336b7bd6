import Foundation
import LivelineModel
import Testing

/// A contract file that breaks a rule is refused with the place in the file and what was expected
/// (`docs/contracts.md`, "Contract files").
@Suite struct ContractFileErrorTests {
    /// A valid file; each test changes one thing.
    static let base: [String: JSONValue] = [
        "format": "liveline-contract/1", "type": "DeliveryActivityAttributes", "version": 2,
        "attributes": [["key": "orderId", "type": "String"], ["key": "restaurant", "type": "String"]],
        "contentState": [
            ["key": "status", "type": "Status"], ["key": "eta", "type": "Date", "optional": true, "since": 2],
            ["key": "items", "type": "[Item]"],
        ],
        "types": ["Status": ["enum": ["preparing", "onTheWay", "delivered"]], "Item": ["fields": [["key": "name", "type": "String"]]]],
        "example": ["attributes": ["orderId": "A-1", "restaurant": "Roma"], "contentState": ["status": "preparing", "items": []]],
        "lifecycle": ["staleAfter": 900, "dismissAfter": 3600, "priorityBudget": 20, "materialKeys": ["status", "eta"]],
        "card": ["lockScreen": "{attributes.restaurant}: {status}", "compactTrailing": "{eta}"],
    ]

    /// The error parsing `base` changed by `change` throws; nil when it parses.
    static func error(_ change: (inout [String: JSONValue]) -> Void) -> ContractFileError? {
        var file = base
        change(&file)
        return error(JSONValue.object(file).compactJSON)
    }

    static func error(_ data: Data) -> ContractFileError? {
        do {
            _ = try ContractFile.parse(data)
            return nil
        } catch {
            return error
        }
    }

    /// `base`'s content state with element `index` replaced.
    static func contentState(_ index: Int, _ field: JSONValue) -> JSONValue {
        guard case .array(var fields)? = base["contentState"] else { return .null }
        fields[index] = field
        return .array(fields)
    }

    @Test func theBaseFileParses() throws {
        #expect(Self.error { _ in } == nil)
        let file = try ContractFile.parse(JSONValue.object(Self.base).compactJSON)
        #expect(file.schema.contentState.map(\.key) == ["status", "eta", "items"])
    }

    @Test func aFileOverTheLimitIsRefusedBeforeParsingWithBothSizes() {
        let data = Data(repeating: UInt8(ascii: " "), count: ContractFile.maximumSize + 1)
        let error = Self.error(data)
        #expect(error?.code == .tooLarge)
        #expect(error?.description == "the file is 262145 bytes; a contract file may have at most 262144 bytes")
    }

    @Test func textThatIsNotJSONOrNotAnObjectIsRefused() {
        let broken = Self.error(Data(#"{"format": "liveline-contract/1",}"#.utf8))
        #expect(broken?.code == .notJSON)
        #expect(broken?.message.hasPrefix("the file is not JSON (") == true)
        #expect(broken?.message.contains("line 1, column") == true, "the parser's place: \(broken?.message ?? "")")
        let array = Self.error(Data("[1]".utf8))
        #expect(array?.code == .notJSON)
        #expect(array?.message == "the file is an array; expected a JSON object, a contract file (liveline-contract/1)")
    }

    @Test func aMissingOrForeignFormatIsRefused() {
        let missing = Self.error { $0["format"] = nil }
        #expect(missing?.code == .missingMember)
        #expect(missing?.description == #"format: is missing; expected "liveline-contract/1" (is this a contract file?)"#)
        let newer = Self.error { $0["format"] = "liveline-contract/2" }
        #expect(newer?.code == .unsupportedFormat)
        #expect(newer?.message.contains("a format this server does not read") == true)
        let other = Self.error { $0["format"] = "openapi/3" }
        #expect(other?.description == #"format: is "openapi/3"; expected "liveline-contract/1""#)
    }

    @Test func missingMistypedAndUnknownMembersAreNamed() {
        let missing = Self.error { $0["contentState"] = nil }
        #expect(missing?.code == .missingMember && missing?.field == "contentState")
        let mistyped = Self.error { $0["version"] = "2" }
        #expect(mistyped?.code == .mistypedMember)
        #expect(mistyped?.description == #"version: expected a whole number, found a string "2""#)
        let typo = Self.error { $0["lifecyle"] = [:] }
        #expect(typo?.code == .unknownMember && typo?.field == "lifecyle")
        #expect(typo?.message.hasSuffix("Did you mean 'lifecycle'?") == true)
        let fieldTypo = Self.error { $0["contentState"] = Self.contentState(1, ["key": "eta", "type": "Date", "optinal": true, "since": 2]) }
        #expect(fieldTypo?.field == "contentState[1].optinal")
        #expect(fieldTypo?.message.hasSuffix("Did you mean 'optional'?") == true)
        let noType = Self.error { $0["contentState"] = Self.contentState(2, ["key": "items"]) }
        #expect(noType?.description == #"contentState[2].type: is missing; expected the key's type, e.g. "String""#)
    }

    @Test func aTypeNameThatIsNoSwiftIdentifierIsRefused() {
        let error = Self.error { $0["type"] = "Delivery Attributes" }
        #expect(error?.code == .invalidName && error?.field == "type")
        #expect(error?.message.hasPrefix("'Delivery Attributes' is not a Swift identifier") == true)
        let typeName = Self.error { $0["types"] = ["Status": ["enum": ["a"]], "Item": ["fields": []], "1tem": ["fields": []]] }
        #expect(typeName?.field == "types.1tem" && typeName?.code == .invalidName)
        let builtIn = Self.error { $0["types"] = ["Status": ["enum": ["a"]], "Item": ["fields": []], "Date": ["enum": ["a"]]] }
        #expect(builtIn?.description == "types.Date: 'Date' is a built-in type; give the type another name")
    }

    @Test func aVersionBelowOneOrOver32BitsIsRefused() {
        let error = Self.error {
            $0["version"] = 0
            $0["contentState"] = Self.contentState(1, ["key": "eta", "type": "Date", "optional": true])
        }
        #expect(error?.code == .invalidVersion)
        #expect(error?.description == "version: is 0; expected 1 to 2147483647 (a contract's first version is 1; the server stores it in 32 bits)")
        let large = Self.error { $0["version"] = 2_147_483_648 }
        #expect(large?.code == .invalidVersion && large?.field == "version", "\(String(describing: large))")
    }

    @Test func anUnknownTypeIsRefusedWithTheOneMeant() {
        let error = Self.error { $0["attributes"] = [["key": "orderId", "type": "Strin"]] }
        #expect(error?.code == .unknownType)
        #expect(
            error?.description
                == "attributes[0].type: 'Strin' is not a type: expected String, Int, Double, Bool, Date, [T] or a name from types. Did you mean 'String'?"
        )
        let named = Self.error { $0["contentState"] = Self.contentState(2, ["key": "items", "type": "[Iten]"]) }
        #expect(named?.field == "contentState[2].type" && named?.message.hasSuffix("Did you mean 'Item'?") == true)
        let optional = Self.error { $0["contentState"] = Self.contentState(1, ["key": "eta", "type": "Date?", "since": 2]) }
        #expect(optional?.message == #"'Date?' is not a type: a key that may be null or absent has "optional": true and the type 'Date'"#)
        let unclosed = Self.error { $0["contentState"] = Self.contentState(2, ["key": "items", "type": "[Item"]) }
        #expect(unclosed?.code == .unknownType && unclosed?.message.hasPrefix("'[Item' is not a type: an array is [T]") == true)
    }

    @Test func aTypeNestedTooDeepIsRefused() {
        let deepArray = String(repeating: "[", count: 40) + "Int" + String(repeating: "]", count: 40)
        let arrays = Self.error { $0["contentState"] = Self.contentState(2, ["key": "items", "type": .string(deepArray)]) }
        #expect(arrays?.code == .tooDeep && arrays?.field == "contentState[2].type")
        #expect(arrays?.message.hasSuffix("nests more than 32 deep; a key's type nests at most 32 arrays and objects") == true)
        let huge = Self.error {
            $0["contentState"] = Self.contentState(2, ["key": "items", "type": .string(String(repeating: "[", count: 200_000))])
        }
        #expect(huge?.code == .unknownType && (huge?.message.count ?? .max) < 200, "the message quotes the type cut short")
        let chain = Self.error {
            var types: [String: JSONValue] = ["Status": ["enum": ["a"]], "Item": ["fields": [["key": "next", "type": "T1"]]]]
            for level in 1...40 { types["T\(level)"] = ["fields": [["key": "next", "type": level == 40 ? "Int" : .string("T\(level + 1)")]]] }
            $0["types"] = .object(types)
        }
        #expect(chain?.code == .tooDeep && chain?.field == "types.T31.fields[0].type")
        let optionalElements = Self.error { $0["contentState"] = Self.contentState(2, ["key": "items", "type": "[Item?]"]) }
        #expect(optionalElements?.message == "'[Item?]' is not a type: an array's elements cannot be optional (the derivation refuses them too)")
    }

    @Test func aKeyListedTwiceIsRefused() {
        let error = Self.error {
            guard case .array(let fields)? = $0["contentState"] else { return }
            $0["contentState"] = .array(fields + [["key": "status", "type": "String"]])
        }
        #expect(error?.code == .duplicateKey)
        #expect(error?.description == "contentState[3].key: 'status' is also the key of contentState[0]; each key once")
        let nested = Self.error {
            $0["types"] = [
                "Status": ["enum": ["a"]], "Item": ["fields": [["key": "name", "type": "String"], ["key": "name", "type": "Int"]]],
            ]
        }
        #expect(nested?.field == "types.Item.fields[1].key" && nested?.code == .duplicateKey)
    }

    @Test func anEnumWithoutCasesOrWithACaseTwiceIsRefused() {
        let empty = Self.error { $0["types"] = ["Status": ["enum": []], "Item": ["fields": []]] }
        #expect(empty?.code == .invalidEnum)
        #expect(empty?.description == "types.Status.enum: has no cases; expected at least one String raw value")
        let twice = Self.error { $0["types"] = ["Status": ["enum": ["a", "b", "a"]], "Item": ["fields": []]] }
        #expect(twice?.description == "types.Status.enum[2]: 'a' is also case types.Status.enum[0]; each case once")
        let both = Self.error { $0["types"] = ["Status": ["enum": ["a"], "fields": []], "Item": ["fields": []]] }
        #expect(both?.code == .mistypedMember && both?.field == "types.Status")
    }

    @Test func aTypeThatContainsItselfIsRefusedNamingTheCycle() {
        let direct = Self.error {
            $0["types"] = [
                "Status": ["enum": ["a"]], "Item": ["fields": [["key": "name", "type": "String"], ["key": "children", "type": "[Item]"]]],
            ]
        }
        #expect(direct?.code == .recursiveType)
        #expect(
            direct?.description
                == "types.Item.fields[1].type: Item contains itself (Item → children → [Item]); a contract is a finite tree of keys: leave the recursive key out"
        )
        let indirect = Self.error {
            $0["types"] = [
                "Status": ["enum": ["a"]], "Item": ["fields": [["key": "box", "type": "Box"]]],
                "Box": ["fields": [["key": "items", "type": "[Item]"]]],
            ]
        }
        #expect(indirect?.field == "types.Box.fields[0].type")
        #expect(indirect?.message.hasPrefix("Item contains itself (Item → box → Box → items → [Item])") == true)
    }

    @Test func aKeyAddedAfterVersionOneMustBeOptional() {
        let error = Self.error { $0["contentState"] = Self.contentState(1, ["key": "eta", "type": "Date", "since": 2]) }
        #expect(error?.code == .addedKeyNotOptional && error?.field == "contentState[1].optional")
        #expect(
            error?.message
                == "'eta' was added in version 2 but is required: states stored under an earlier version lack it; expected \"optional\": true")
        let later = Self.error { $0["contentState"] = Self.contentState(1, ["key": "eta", "type": "Date", "optional": true, "since": 3]) }
        #expect(later?.code == .invalidSince)
        #expect(later?.description == "contentState[1].since: is 3; expected 1 … 2, the version that added the key (the file's version is 2)")
    }

    /// Refused rather than warned about: a file says exactly what its schema holds, and a file
    /// written again from the parsed value would lose the type without a word.
    @Test func aTypeNoKeyUsesIsRefused() {
        let error = Self.error { $0["types"] = ["Status": ["enum": ["a"]], "Item": ["fields": []], "Spare": ["enum": ["x"]]] }
        #expect(error?.code == .unusedType)
        #expect(error?.description == "types.Spare: no key uses Spare; refer to it from a key's type or remove it")
    }

    @Test func anExampleThatDoesNotMatchTheSchemaIsRefusedAtItsFirstProblem() {
        let wrong = Self.error { $0["example"] = ["contentState": ["status": "lost", "items": [["name": 7]]]] }
        #expect(wrong?.code == .exampleMismatch && wrong?.field == "example.contentState.status")
        #expect(wrong?.message.hasPrefix(#""lost" is not a Status; expected one of preparing, onTheWay, delivered"#) == true)
        let nested = Self.error { $0["example"] = ["contentState": ["status": "preparing", "items": [["name": 7]]]] }
        #expect(nested?.field == "example.contentState.items[0].name")
        #expect(nested?.message == "expected a string (String), found a number 7")
        let missing = Self.error { $0["example"] = ["attributes": ["orderId": "A-1"]] }
        #expect(missing?.field == "example.attributes.restaurant" && missing?.message.hasPrefix("is missing") == true)
        let old = Self.error { $0["example"] = ["contentState": ["status": "preparing", "items": [], "eta": 0]] }
        #expect(old == nil, "a date's plausibility depends on the day; an example is checked for its shape")
    }

    @Test func lifecycleNumbersOutOfRangeAreRefused() {
        func lifecycle(_ members: [String: JSONValue]) -> ContractFileError? { Self.error { $0["lifecycle"] = .object(members) } }
        #expect(lifecycle(["staleAfter": 0])?.description.hasPrefix("lifecycle.staleAfter: is 0; expected more than 0 and at most 43200") == true)
        #expect(lifecycle(["staleAfter": .double(1e300)])?.code == .outOfRange, "a stale date beyond an activity's 12 hours")
        #expect(lifecycle(["staleAfter": 43_200]) == nil)
        #expect(
            lifecycle(["dismissAfter": 14_401])?.description
                == "lifecycle.dismissAfter: is 14401; expected 0 … 14400 seconds: an ended activity stays at most 4 hours")
        #expect(lifecycle(["dismissAfter": -1])?.code == .outOfRange)
        #expect(lifecycle(["dismissAfter": 0, "dismissAfter2": 1])?.code == .unknownMember)
        #expect(lifecycle(["dismissAfter": 14_400, "staleAfter": .double(0.5), "priorityBudget": 0]) == nil)
        #expect(
            lifecycle(["priorityBudget": -1])?.description == "lifecycle.priorityBudget: is -1; expected 0 or more priority-10 pushes per hour")
    }

    @Test func materialKeysMustNameContentStateKeys() {
        let typo = Self.error { $0["lifecycle"] = ["materialKeys": ["status", "itms"]] }
        #expect(typo?.code == .unknownKey)
        #expect(
            typo?.description
                == "lifecycle.materialKeys[1]: 'itms' is not a content-state key; expected one of status, eta, items. Did you mean 'items'?")
        #expect(Self.error { $0["lifecycle"] = ["materialKeys": ["orderId"]] }?.field == "lifecycle.materialKeys[0]")
        #expect(Self.error { $0["lifecycle"] = ["materialKeys": ["rev"]] }?.message.hasPrefix("'rev' changes on every push") == true)
        #expect(Self.error { $0["lifecycle"] = ["materialKeys": ["eta", "eta"]] }?.code == .duplicateKey)
    }

    @Test func aCardPlaceholderMustNameAKey() {
        let typo = Self.error { $0["card"] = ["lockScreen": "{statis}"] }
        #expect(typo?.code == .unknownKey)
        #expect(
            typo?.description == "card.lockScreen: {statis} names no content-state key; expected one of status, eta, items. Did you mean 'status'?")
        let attribute = Self.error { $0["card"] = ["lockScreen": "ok", "expanded": "{restaurant}"] }
        #expect(attribute?.field == "card.expanded")
        #expect(attribute?.message.hasSuffix("Did you mean '{attributes.restaurant}'?") == true)
        let noAttribute = Self.error { $0["card"] = ["lockScreen": "{attributes.eta}"] }
        #expect(noAttribute?.message == "{attributes.eta} names no attribute; expected one of orderId, restaurant")
        let unclosed = Self.error { $0["card"] = ["lockScreen": "{status"] }
        #expect(unclosed?.code == .invalidPlaceholder)
        #expect(unclosed?.message == "'{' at character 1 opens a placeholder that is not closed; write {{ for a literal brace")
        #expect(Self.error { $0["card"] = ["lockScreen": "{}"] }?.code == .invalidPlaceholder)
        #expect(Self.error { $0["card"] = ["compactLeading": "{status}"] }?.field == "card.lockScreen")
        #expect(Self.error { $0["card"] = ["lockScreen": "{{literal} {status}"] } == nil)
    }

    @Test func aFingerprintThatIsNotTheSchemasIsRefusedNamingBoth() throws {
        let file = try ContractFile.parse(JSONValue.object(Self.base).compactJSON)
        #expect(Self.error { $0["fingerprint"] = .string(file.fingerprint) } == nil)
        let error = Self.error { $0["fingerprint"] = "0123456789abcdef" }
        #expect(error?.code == .fingerprintMismatch && error?.field == "fingerprint")
        #expect(error?.message.hasPrefix("the file says 0123456789abcdef, but its schema gives \(file.fingerprint):") == true)
        let edited = Self.error {
            $0["fingerprint"] = .string(file.fingerprint)
            $0["attributes"] = [["key": "orderId", "type": "Int"], ["key": "restaurant", "type": "String"]]
            $0["example"] = nil
        }
        #expect(edited?.code == .fingerprintMismatch, "a type edited after export")
    }
}
