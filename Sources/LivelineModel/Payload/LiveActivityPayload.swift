import Foundation

/// A Live Activity push body, `{"aps": {…}}`, typed by its contract: the server encodes every
/// push from this type and never assembles one from loose dictionaries (`docs/contracts.md`).
///
/// This type owns the kebab-case wire format of the `aps` dictionary. Header dates (`timestamp`,
/// `stale-date`, `dismissal-date`) are UNIX seconds; the content state and attributes are encoded
/// with the contract's own `Codable`, so a `Date` inside them becomes Swift's default (seconds
/// since 2001-01-01), which is what ActivityKit decodes. Related APNs documentation: "Starting
/// and updating Live Activities with ActivityKit push notifications"; `docs/apns.md` §1.5.
public struct LiveActivityPayload<Attributes: LiveActivityContract>: Codable, Hashable, Sendable {
    public var event: LiveActivityEvent
    /// When the state was current; the phone shows the newest and drops older updates.
    public var timestamp: Date
    public var contentState: Attributes.ContentState
    /// The static attributes; `start` only (sent with `attributes-type`, the contract's name).
    public var attributes: Attributes?
    /// When the card becomes stale (start/update).
    public var staleDate: Date?
    /// When an ended card leaves the lock screen (`end` only; capped at 4 h).
    public var dismissalDate: Date?
    /// Orders several activities; any Double for Live Activities.
    public var relevanceScore: Double?
    public var alert: LiveActivityAlert?
    /// `input-push-token: 1` (start, iOS 18+): the started activity mints an update token.
    public var inputPushToken: Bool
    /// `input-push-channel` (start, iOS 18+): the started activity subscribes to this base64 channel.
    public var inputPushChannel: String?

    public init(
        event: LiveActivityEvent, timestamp: Date, contentState: Attributes.ContentState, attributes: Attributes? = nil,
        staleDate: Date? = nil, dismissalDate: Date? = nil, relevanceScore: Double? = nil, alert: LiveActivityAlert? = nil,
        inputPushToken: Bool = false, inputPushChannel: String? = nil
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.attributes = attributes
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
    }

    /// A push-to-start payload: attributes, first state and the alert that a start requires.
    public static func start(
        attributes: Attributes, contentState: Attributes.ContentState, alert: LiveActivityAlert, timestamp: Date,
        staleDate: Date? = nil, relevanceScore: Double? = nil, inputPushToken: Bool = false, inputPushChannel: String? = nil
    ) -> Self {
        Self(
            event: .start, timestamp: timestamp, contentState: contentState, attributes: attributes, staleDate: staleDate,
            relevanceScore: relevanceScore, alert: alert, inputPushToken: inputPushToken, inputPushChannel: inputPushChannel
        )
    }

    /// An update: the new state, optionally with a stale date and an alert.
    public static func update(
        contentState: Attributes.ContentState, timestamp: Date, staleDate: Date? = nil,
        relevanceScore: Double? = nil, alert: LiveActivityAlert? = nil
    ) -> Self {
        Self(event: .update, timestamp: timestamp, contentState: contentState, staleDate: staleDate, relevanceScore: relevanceScore, alert: alert)
    }

    /// An end: the final state, and when the card leaves the lock screen.
    public static func end(contentState: Attributes.ContentState, timestamp: Date, dismissalDate: Date? = nil) -> Self {
        Self(event: .end, timestamp: timestamp, contentState: contentState, dismissalDate: dismissalDate)
    }

    /// The body to send: compact JSON with Foundation's default strategies.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    private enum CodingKeys: String, CodingKey {
        case aps
    }

    private enum APSKeys: String, CodingKey {
        case event, timestamp
        case contentState = "content-state"
        case attributesType = "attributes-type"
        case attributes
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case relevanceScore = "relevance-score"
        case alert
        case inputPushToken = "input-push-token"
        case inputPushChannel = "input-push-channel"
    }

    public init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: CodingKeys.self)
        let aps = try root.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        event = try aps.decode(LiveActivityEvent.self, forKey: .event)
        timestamp = Date(timeIntervalSince1970: try aps.decode(Double.self, forKey: .timestamp))
        contentState = try aps.decode(Attributes.ContentState.self, forKey: .contentState)
        if let type = try aps.decodeIfPresent(String.self, forKey: .attributesType), type != Attributes.typeName {
            throw DecodingError.invalidValue("'\(Attributes.typeName)'", at: aps.codingPath + [APSKeys.attributesType])
        }
        attributes = try aps.decodeIfPresent(Attributes.self, forKey: .attributes)
        staleDate = try aps.decodeIfPresent(Double.self, forKey: .staleDate).map(Date.init(timeIntervalSince1970:))
        dismissalDate = try aps.decodeIfPresent(Double.self, forKey: .dismissalDate).map(Date.init(timeIntervalSince1970:))
        relevanceScore = try aps.decodeIfPresent(Double.self, forKey: .relevanceScore)
        alert = try aps.decodeIfPresent(LiveActivityAlert.self, forKey: .alert)
        inputPushToken = try aps.decodeIfPresent(Int.self, forKey: .inputPushToken) == 1
        inputPushChannel = try aps.decodeIfPresent(String.self, forKey: .inputPushChannel)
    }

    public func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: CodingKeys.self)
        var aps = root.nestedContainer(keyedBy: APSKeys.self, forKey: .aps)
        try aps.encode(Self.unixSeconds(timestamp), forKey: .timestamp)
        try aps.encode(event, forKey: .event)
        try aps.encode(contentState, forKey: .contentState)
        if let attributes {
            try aps.encode(Attributes.typeName, forKey: .attributesType)
            try aps.encode(attributes, forKey: .attributes)
        }
        try aps.encodeIfPresent(staleDate.map(Self.unixSeconds), forKey: .staleDate)
        try aps.encodeIfPresent(dismissalDate.map(Self.unixSeconds), forKey: .dismissalDate)
        try aps.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try aps.encodeIfPresent(alert, forKey: .alert)
        if inputPushToken { try aps.encode(1, forKey: .inputPushToken) }
        try aps.encodeIfPresent(inputPushChannel, forKey: .inputPushChannel)
    }

    /// Whole UNIX seconds: the `aps` header dates are integers of seconds since 1970.
    static func unixSeconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
