import Foundation
import LivelineModel

/// The shopping list (`docs/features/shopping.md`): the calls its app and widget make. `by` is the acting
/// member when a device is shared (the caller's user when left out).
extension APICaller {
    /// The week's list and card; `.unchanged` (nothing else computed) when `sinceRev` is current.
    public func shoppingWeek(_ week: String, sinceRev: Int? = nil) async throws -> ShoppingWeekResponse {
        let query = sinceRev.map { [URLQueryItem(name: "since_rev", value: String($0))] } ?? []
        return try await call(Routes.shoppingWeek, parameters: ["week": week], query: query)
    }

    /// Adds an item to the week's list.
    @discardableResult
    public func addShoppingItem(week: String, label: String, price: Double? = nil, by: Int? = nil) async throws -> ShoppingItemResponse {
        try await call(Routes.addShoppingItem, parameters: ["week": week], body: AddShoppingItemRequest(label: label, price: price, by: by))
    }

    /// Checks an item off (`done: true`) or puts it back; also edits label, price or position.
    @discardableResult
    public func updateShoppingItem(id: Int, _ change: UpdateShoppingItemRequest) async throws -> ShoppingItemResponse {
        try await call(Routes.updateShoppingItem, parameters: ["id": String(id)], body: change)
    }

    /// Removes an item.
    @discardableResult
    public func removeShoppingItem(id: Int, by: Int? = nil) async throws -> RemoveShoppingItemResponse {
        let query = by.map { [URLQueryItem(name: "by", value: String($0))] } ?? []
        return try await call(Routes.removeShoppingItem, parameters: ["id": String(id)], query: query)
    }

    /// Starts shopping: the caller (or `by`) becomes an active shopper and the other members'
    /// devices get the card by push-to-start. This app starts its own card itself (following
    /// `channelId` when the answer has one).
    @discardableResult
    public func startShopping(week: String, by: Int? = nil) async throws -> ShoppingSessionResponse {
        try await call(Routes.startShopping, parameters: ["week": week], body: ShoppingSessionRequest(by: by))
    }

    /// Keeps the shopping session alive; `active` false when it lapsed (start shopping again).
    @discardableResult
    public func shoppingHeartbeat(week: String, by: Int? = nil) async throws -> ShoppingHeartbeatResponse {
        try await call(Routes.shoppingHeartbeat, parameters: ["week": week], body: ShoppingSessionRequest(by: by))
    }

    /// Leaves the shop; when the last shopper leaves, the card ends (`finished`).
    @discardableResult
    public func endShopping(week: String, by: Int? = nil) async throws -> ShoppingSessionEndResponse {
        try await call(Routes.endShopping, parameters: ["week": week], body: ShoppingSessionRequest(by: by))
    }
}
