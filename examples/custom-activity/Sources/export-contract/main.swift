import DeliveryShared
import Foundation
import LivelineModel

// Prints the contract file of `DeliveryActivityAttributes` (docs/contracts.md, "Bring your own
// Live Activity"): its keys and types read from the type's own `Decodable` conformance, an
// example, the lifecycle and the card. Run it after every change of the type, with a new
// `version` when the shape changed:
//
//     swift run --package-path examples/custom-activity export-contract > contracts/DeliveryActivityAttributes.json
do {
    var file = try ContractFile.derived(
        attributes: DeliveryActivityAttributes.self, contentState: DeliveryActivityAttributes.ContentState.self, version: 1,
        example: (
            DeliveryActivityAttributes(orderId: "A-1042", restaurant: "Pizzeria Napoli"),
            DeliveryActivityAttributes.ContentState(
                status: .pickedUp, eta: Date(timeIntervalSinceReferenceDate: 818_000_000), courierName: "Sam",
                items: [.init(name: "Margherita", quantity: 2)])
        ))
    file.lifecycle = ContractLifecycle(staleAfter: 900, dismissAfter: 1800, priorityBudget: nil, materialKeys: ["status", "eta"])
    file.card = CardTemplate(
        lockScreen: "🛵 {attributes.restaurant}: {status}\nETA {eta} · {courierName}", compactLeading: "🛵", compactTrailing: "{eta}",
        expanded: "{attributes.restaurant} · order {attributes.orderId}\n{status}, ETA {eta}")
    FileHandle.standardOutput.write(file.json)
} catch {
    FileHandle.standardError.write(Data("export-contract: \(error)\n".utf8))
    exit(1)
}
