import Foundation
import LivelineModel

/// One item of a household's shopping week as the API shows it (`docs/features/shopping.md`, "Data").
public struct ShoppingListItem: Codable, Sendable, Hashable {
    public var id: Int
    public var label: String
    /// Euros; nil when nobody gave a price.
    public var price: Double?
    public var position: Int
    public var done: Bool
    public var addedBy: Int?
    public var addedAt: Date
    public var checkedBy: Int?
    public var checkedAt: Date?

    public init(
        id: Int, label: String, price: Double?, position: Int, done: Bool, addedBy: Int?, addedAt: Date, checkedBy: Int?, checkedAt: Date?
    ) {
        self.id = id
        self.label = label
        self.price = price
        self.position = position
        self.done = done
        self.addedBy = addedBy
        self.addedAt = addedAt
        self.checkedBy = checkedBy
        self.checkedAt = checkedAt
    }

    enum CodingKeys: String, CodingKey { case id, label, price, position, done, addedBy, addedAt, checkedBy, checkedAt }

    /// Every key is written, an absent value as `null` (an app sees `price: null`, not no key).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(label, forKey: .label)
        try container.encode(price, forKey: .price)
        try container.encode(position, forKey: .position)
        try container.encode(done, forKey: .done)
        try container.encode(addedBy, forKey: .addedBy)
        try container.encode(addedAt, forKey: .addedAt)
        try container.encode(checkedBy, forKey: .checkedBy)
        try container.encode(checkedAt, forKey: .checkedAt)
    }
}

/// Answer of `GET /api/shopping/{week}?since_rev=N`: with `N` equal to the current revision only
/// `week`, `rev` and `unchanged: true`; else the items and the card's content state, all from
/// the one read that gave `rev`.
public struct ShoppingWeekResponse: Codable, Sendable, Hashable {
    public var week: String
    public var rev: Int
    public var unchanged: Bool
    public var items: [ShoppingListItem]?
    public var state: ShoppingActivityAttributes.ContentState?

    public init(week: String, rev: Int, unchanged: Bool, items: [ShoppingListItem]? = nil, state: ShoppingActivityAttributes.ContentState? = nil) {
        self.week = week
        self.rev = rev
        self.unchanged = unchanged
        self.items = items
        self.state = state
    }
}

/// Body of `POST /api/shopping/{week}/items`.
public struct AddShoppingItemRequest: Codable, Sendable, Hashable {
    public var label: String
    public var price: Double?
    /// Who acts (a member of the caller's household); the caller's user when left out.
    public var by: Int?

    public init(label: String, price: Double? = nil, by: Int? = nil) {
        self.label = label
        self.price = price
        self.by = by
    }
}

/// Body of `PATCH /api/shopping/items/{id}`: only what is given changes. `price: null` removes
/// the price (a left-out `price` keeps it).
public struct UpdateShoppingItemRequest: Codable, Sendable, Hashable {
    public var done: Bool?
    public var label: String?
    /// `.some(nil)`: remove the price; nil: keep it.
    public var price: Double??
    public var position: Int?
    public var by: Int?

    public init(done: Bool? = nil, label: String? = nil, price: Double?? = nil, position: Int? = nil, by: Int? = nil) {
        self.done = done
        self.label = label
        self.price = price
        self.position = position
        self.by = by
    }

    enum CodingKeys: String, CodingKey { case done, label, price, position, by }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        done = try container.decodeIfPresent(Bool.self, forKey: .done)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        if container.contains(.price) {
            price = .some(try container.decodeNil(forKey: .price) ? nil : try container.decode(Double.self, forKey: .price))
        } else {
            price = nil
        }
        position = try container.decodeIfPresent(Int.self, forKey: .position)
        by = try container.decodeIfPresent(Int.self, forKey: .by)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(done, forKey: .done)
        try container.encodeIfPresent(label, forKey: .label)
        switch price {
        case .some(.some(let value)): try container.encode(value, forKey: .price)
        case .some(.none): try container.encodeNil(forKey: .price)
        case .none: break
        }
        try container.encodeIfPresent(position, forKey: .position)
        try container.encodeIfPresent(by, forKey: .by)
    }
}

/// Answer of adding or changing an item: the item, and the week's revision after the change.
public struct ShoppingItemResponse: Codable, Sendable, Hashable {
    public var item: ShoppingListItem
    public var rev: Int

    public init(item: ShoppingListItem, rev: Int) {
        self.item = item
        self.rev = rev
    }

    // The item's fields at the top level (an app that expects "the item" reads it unchanged), plus `rev`.
    public init(from decoder: any Decoder) throws {
        item = try ShoppingListItem(from: decoder)
        rev = try decoder.container(keyedBy: RevKey.self).decode(Int.self, forKey: .rev)
    }

    public func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: RevKey.self)
        try container.encode(rev, forKey: .rev)
    }

    enum RevKey: String, CodingKey { case rev }
}

/// Answer of `DELETE /api/shopping/items/{id}`.
public struct RemoveShoppingItemResponse: Codable, Sendable, Hashable {
    public var id: Int
    public var removed: Bool
    public var rev: Int

    public init(id: Int, removed: Bool, rev: Int) {
        self.id = id
        self.removed = removed
        self.rev = rev
    }
}

/// Body of the session routes (start, heartbeat, end); an empty body is the same as `{}`.
public struct ShoppingSessionRequest: Codable, Sendable, Hashable {
    public var by: Int?

    public init(by: Int? = nil) {
        self.by = by
    }
}

/// Answer of `POST /api/shopping/{week}/session`: the card's context, who is shopping, and what
/// the push-to-start did on the other members' devices (the starter's app starts its card itself,
/// following `channelId` when there is one).
public struct ShoppingSessionResponse: Codable, Sendable, Hashable {
    public var week: String
    public var rev: Int
    public var contextKey: String
    public var activeShoppers: [Shopper]
    public var channelId: String?
    public var channelFallback: String?
    public var starts: [StartContextResponse.Start]

    public init(
        week: String, rev: Int, contextKey: String, activeShoppers: [Shopper], channelId: String? = nil, channelFallback: String? = nil,
        starts: [StartContextResponse.Start] = []
    ) {
        self.week = week
        self.rev = rev
        self.contextKey = contextKey
        self.activeShoppers = activeShoppers
        self.channelId = channelId
        self.channelFallback = channelFallback
        self.starts = starts
    }
}

/// Answer of `POST /api/shopping/{week}/session/heartbeat`: `active` false when the actor has no
/// active session (it lapsed or ended; none is created — start shopping again).
public struct ShoppingHeartbeatResponse: Codable, Sendable, Hashable {
    public var week: String
    public var active: Bool

    public init(week: String, active: Bool) {
        self.week = week
        self.active = active
    }
}

/// Answer of `POST /api/shopping/{week}/session/end`: `left` false when the actor was not
/// shopping (nothing changed); `finished` when they were the last shopper and the card ended.
public struct ShoppingSessionEndResponse: Codable, Sendable, Hashable {
    public var week: String
    public var rev: Int
    public var left: Bool
    public var finished: Bool

    public init(week: String, rev: Int, left: Bool, finished: Bool) {
        self.week = week
        self.rev = rev
        self.left = left
        self.finished = finished
    }
}
