import Foundation

/// A food order on its way: the app's own `ActivityAttributes` type, shared by the app and its
/// widget. Liveline reads it through its `Decodable` conformance (`export-contract`); nothing of
/// Liveline's is needed to declare it.
public struct DeliveryActivityAttributes: Codable, Hashable, Sendable {
    /// Where the order is.
    public enum Status: String, Codable, Hashable, Sendable, CaseIterable {
        case preparing, pickedUp, nearby, delivered
    }

    /// One dish of the order.
    public struct Item: Codable, Hashable, Sendable {
        public var name: String
        public var quantity: Int

        public init(name: String, quantity: Int) {
            self.name = name
            self.quantity = quantity
        }
    }

    /// The dynamic part: sent with every start, update and end.
    public struct ContentState: Codable, Hashable, Sendable {
        public var status: Status
        /// When the courier is expected (a `Date`: seconds since 2001 on the wire).
        public var eta: Date
        public var courierName: String?
        public var items: [Item]

        public init(status: Status, eta: Date, courierName: String? = nil, items: [Item]) {
            self.status = status
            self.eta = eta
            self.courierName = courierName
            self.items = items
        }
    }

    public var orderId: String
    public var restaurant: String

    public init(orderId: String, restaurant: String) {
        self.orderId = orderId
        self.restaurant = restaurant
    }
}

#if canImport(ActivityKit) && (os(iOS) || LIVELINE_APPLE_GLUE)
import ActivityKit

extension DeliveryActivityAttributes: ActivityAttributes {}
#endif
