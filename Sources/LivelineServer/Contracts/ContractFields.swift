import LivelineAPI
import LivelineModel

/// The fields of `/v1/contracts`.
enum ContractFields {
    static let type = FieldRule(
        "type", .text(length: 1...128, format: TextFormat(pattern: "^[A-Za-z_][A-Za-z0-9_]*$", about: "a Swift type name")),
        about: "the ActivityAttributes type"
    ).example("DeliveryActivityAttributes")
    static let force = FieldRule("force", .oneOf(["true", "false"]), about: "store a version that installed apps cannot decode pushes of")

    /// The document's example of a contract file: a food delivery (`examples/custom-activity`).
    static let exampleFile: JSONValue = {
        let item = ContractField.FieldType.object(name: "Item", fields: [ContractField("name", .string), ContractField("quantity", .int)])
        let file = ContractFile(
            typeName: "DeliveryActivityAttributes", version: 1,
            schema: ContractSchema(
                attributes: [ContractField("orderId", .string), ContractField("restaurant", .string)],
                contentState: [
                    ContractField("status", .enumeration(name: "Status", cases: ["preparing", "pickedUp", "nearby", "delivered"])),
                    ContractField("eta", .date), ContractField("courierName", .string, optional: true), ContractField("items", .array(item)),
                ]),
            lifecycle: ContractLifecycle(staleAfter: 900, dismissAfter: 1800, materialKeys: ["status", "eta"]),
            card: CardTemplate(lockScreen: "🛵 {attributes.restaurant}: {status}", compactLeading: "🛵", compactTrailing: "{eta}"))
        return (try? JSONValue(json: file.json)) ?? .object([:])
    }()
}
