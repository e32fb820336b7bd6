import Foundation

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

/// Body of `POST /api/la/activity`: the app's own activity of the context on this device, as
/// ActivityKit says it stands — `pending` (scheduled by the app with `Activity.request(…start:)`,
/// iOS 26, until `starts_at`), `active` or `ended` — and its style (`transient`, iOS 18, ends
/// when the person leaves the app; never renewed).
public struct ActivityStateReport: Codable, Sendable, Hashable {
    public var contextKey: String
    public var attributesType: String?
    public var deviceID: String?
    public var state: String
    /// RFC 3339; only with `pending`: when the system will start it.
    public var startsAt: String?
    public var style: String?
    /// ActivityKit's `Activity.id`: the same id on the card's `la-update` token registration
    /// matches the report to that card (`ended` ends its tokens; `transient` keeps it from renewal).
    public var activityID: String?

    public init(
        contextKey: String, attributesType: String? = nil, deviceID: String? = nil, state: String, startsAt: String? = nil, style: String? = nil,
        activityID: String? = nil
    ) {
        self.activityID = activityID
        self.contextKey = contextKey
        self.attributesType = attributesType
        self.deviceID = deviceID
        self.state = state
        self.startsAt = startsAt
        self.style = style
    }

    enum CodingKeys: String, CodingKey {
        case contextKey = "context_key"
        case attributesType = "attributes_type"
        case deviceID = "device_id"
        case state
        case startsAt = "starts_at"
        case style
        case activityID = "activity_id"
    }
}

/// Answer of `POST /api/la/activity`: what was recorded for the device.
public struct ActivityStateResponse: Codable, Sendable, Hashable {
    public var contextKey: String
    public var deviceId: String
    public var state: String
    public var style: String
    public var startsAt: Date?
    public var activityId: String?

    public init(contextKey: String, deviceId: String, state: String, style: String, startsAt: Date? = nil, activityId: String? = nil) {
        self.activityId = activityId
        self.contextKey = contextKey
        self.deviceId = deviceId
        self.state = state
        self.style = style
        self.startsAt = startsAt
    }
}
