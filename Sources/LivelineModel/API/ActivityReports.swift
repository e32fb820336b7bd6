/// Body of `POST /api/la/dismissed`: the user swiped the context's activity away.
public struct DismissedReport: Codable, Sendable, Hashable {
    public var contextKey: String

    public init(contextKey: String) { self.contextKey = contextKey }

    enum CodingKeys: String, CodingKey {
        case contextKey = "context_key"
    }
}

/// Answer of `POST /api/la/dismissed`.
public struct DismissedResponse: Codable, Sendable, Hashable {
    public var contextKey: String
    /// The user's `la-update` tokens for the context that were ended (the activity is gone).
    public var endedTokens: Int

    public init(contextKey: String, endedTokens: Int) {
        self.contextKey = contextKey
        self.endedTokens = endedTokens
    }
}

/// Body of `POST /api/la/receipts`: the device rendered revision `rev` of the context.
public struct ReceiptReport: Codable, Sendable, Hashable {
    public var contextKey: String
    public var rev: Int
    /// The device; without it the bearer token's device session.
    public var deviceID: String?

    public init(contextKey: String, rev: Int, deviceID: String? = nil) {
        self.contextKey = contextKey
        self.rev = rev
        self.deviceID = deviceID
    }

    enum CodingKeys: String, CodingKey {
        case contextKey = "context_key"
        case rev
        case deviceID = "device_id"
    }
}

/// Answer of `POST /api/la/receipts`: the newest revision recorded for the device (a late
/// receipt of an older revision does not lower it).
public struct ReceiptResponse: Codable, Sendable, Hashable {
    public var contextKey: String
    public var deviceId: String
    public var rev: Int

    public init(contextKey: String, deviceId: String, rev: Int) {
        self.contextKey = contextKey
        self.deviceId = deviceId
        self.rev = rev
    }
}

/// Body of `POST /api/la/preferences`: the user's "show Live Activities" setting for one type;
/// the server never push-starts a card of a type the user turned off.
public struct OptInRequest: Codable, Sendable, Hashable {
    public var attributesType: String
    public var enabled: Bool

    public init(attributesType: String, enabled: Bool) {
        self.attributesType = attributesType
        self.enabled = enabled
    }

    enum CodingKeys: String, CodingKey {
        case attributesType = "attributes_type"
        case enabled
    }
}

/// Answer of `GET` and `POST /api/la/preferences`: the caller's settings by activity type (a
/// type not listed is on).
public struct OptInsResponse: Codable, Sendable, Hashable {
    public var preferences: [String: Bool]
    public init(preferences: [String: Bool]) { self.preferences = preferences }
}
