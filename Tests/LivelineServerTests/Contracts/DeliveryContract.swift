import Foundation
import LivelineModel

/// The food-delivery contract of the tests (`examples/custom-activity`): an app's own type the
/// server was not built with, as contract files of several versions.
enum DeliveryContract {
    static let typeName = "DeliveryActivityAttributes"
    static let attributes = [ContractField("orderId", .string), ContractField("restaurant", .string)]
    static let item = ContractField.FieldType.object(name: "Item", fields: [ContractField("name", .string), ContractField("quantity", .int)])
    static let cases = ["preparing", "pickedUp", "nearby", "delivered"]

    static func contentState(cases: [String] = cases) -> [ContractField] {
        [
            ContractField("status", .enumeration(name: "Status", cases: cases)), ContractField("eta", .date),
            ContractField("courierName", .string, optional: true), ContractField("items", .array(item)),
        ]
    }

    static func file(typeName: String = typeName, version: Int = 1, contentState: [ContractField] = contentState()) -> ContractFile {
        let keys = Set(contentState.map(\.key))
        return ContractFile(
            typeName: typeName, version: version, schema: ContractSchema(attributes: attributes, contentState: contentState),
            exampleAttributes: .object(["orderId": .string("A-1"), "restaurant": .string("Napoli")]),
            exampleContentState: .object(state().objectValue?.filter { keys.contains($0.key) } ?? [:]),
            lifecycle: ContractLifecycle(materialKeys: ["status"]),
            card: CardTemplate(lockScreen: "🛵 {attributes.restaurant}: {status}", compactLeading: "🛵", compactTrailing: "{status}"))
    }

    /// Version 2: adds an optional tip (compatible).
    static let v2 = file(version: 2, contentState: contentState() + [ContractField("tip", .double, optional: true, since: 2)])

    static func text(_ file: ContractFile) -> String { String(decoding: file.json, as: UTF8.self) }

    /// A content state, as JSON.
    static func state(_ status: String = "pickedUp", courier: String? = "Sam", extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "status": .string(status), "eta": .double(Date().timeIntervalSinceReferenceDate + 900),
            "courierName": courier.map(JSONValue.string) ?? .null,
            "items": .array([.object(["name": .string("Margherita"), "quantity": .int(2)])]),
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    /// The body of `PUT /v1/contexts/{key}` for this type.
    static func put(_ state: JSONValue, orderID: String = "A-1") -> String {
        let body: JSONValue = .object([
            "type": .string(typeName), "attributes": .object(["orderId": .string(orderID), "restaurant": .string("Napoli")]),
            "contentState": state,
        ])
        return String(decoding: body.compactJSON, as: UTF8.self)
    }
}
