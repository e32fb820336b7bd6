import Foundation
import LivelineModel

/// An app's own Live Activity type, as an app would declare it: the contract files' tests derive
/// their files from it.
struct DeliveryActivityAttributes: Codable {
    enum Status: String, Codable, CaseIterable {
        case preparing, onTheWay, delivered
    }

    struct Item: Codable, Hashable {
        var name: String
        var quantity: Int
    }

    struct ContentState: Codable, Hashable {
        var status: Status
        var eta: Date?
        var items: [Item]
        var total: Double
        var paid: Bool
    }

    var orderId: String
    var restaurant: String

    static let example = DeliveryActivityAttributes(orderId: "A-17", restaurant: "Pizzeria Roma")
    static let exampleContentState = ContentState(
        status: .onTheWay, eta: Date(timeIntervalSinceReferenceDate: 800_000_000), items: [Item(name: "Margherita", quantity: 2)], total: 21.5,
        paid: true)

    /// The schema written by hand, as `contracts.md` would list it.
    static let schema = ContractSchema(
        attributes: [ContractField("orderId", .string), ContractField("restaurant", .string)],
        contentState: [
            ContractField("status", .enumeration(name: "Status", cases: ["preparing", "onTheWay", "delivered"])),
            ContractField("eta", .date, optional: true),
            ContractField("items", .array(.object(name: "Item", fields: [ContractField("name", .string), ContractField("quantity", .int)]))),
            ContractField("total", .double), ContractField("paid", .bool),
        ])
}
