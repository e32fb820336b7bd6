import Foundation
import LivelineModel

/// The food-delivery contract (`examples/custom-activity`) as the dashboard's tests add it: an
/// app's own type the server was not built with, in two versions.
enum DeliveryContract {
    static let typeName = "DeliveryActivityAttributes"
    static let item = ContractField.FieldType.object(name: "Item", fields: [ContractField("name", .string), ContractField("quantity", .int)])

    static func file(version: Int = 1, added: [ContractField] = []) -> ContractFile {
        ContractFile(
            typeName: typeName, version: version,
            schema: ContractSchema(
                attributes: [ContractField("orderId", .string), ContractField("restaurant", .string)],
                contentState: [
                    ContractField("status", .enumeration(name: "Status", cases: ["preparing", "pickedUp", "nearby", "delivered"])),
                    ContractField("eta", .date), ContractField("courierName", .string, optional: true), ContractField("items", .array(item)),
                ] + added),
            lifecycle: ContractLifecycle(materialKeys: ["status"]),
            card: CardTemplate(lockScreen: "🛵 {attributes.restaurant}: {status}", compactLeading: "🛵", compactTrailing: "{status}"))
    }

    static let v1 = file()
    /// Version 2: adds an optional tip (compatible).
    static let v2 = file(version: 2, added: [ContractField("tip", .double, optional: true, since: 2, "the tip, in euros")])

    static func text(_ file: ContractFile) -> String { String(decoding: file.json, as: UTF8.self) }

    /// Registers phone `index`: a push-to-start token of `type` (this one by default), its app
    /// built with `fingerprint` (nil: an app that does not say); the registration's status.
    static func registerPhone(
        _ index: Int, on server: DashboardServer, bearer: String, type: String = typeName, fingerprint: String?
    ) throws -> Int {
        var body: [String: JSONValue] = [
            "kind": .string("la-pushToStart"), "token": .string(String(format: "%064x", 0xde11_0000 + index)),
            "device_id": .string("phone-\(index)"), "attributes_type": .string(type),
        ]
        if let fingerprint { body["contract_fingerprint"] = .string(fingerprint) }
        return try server.request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            body: String(decoding: JSONValue.object(body).compactJSON, as: UTF8.self)
        ).status
    }
}
