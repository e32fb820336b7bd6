import Foundation

/// An ordinary alert push body: `{"aps": {"alert": {…}, "sound", "badge", …}, "link": "…"}`, with
/// the app's custom keys (the deep `link` first) as siblings of `aps`.
///
/// This type owns the wire format: kebab-case `aps` keys, `title-loc-key`/`loc-key` for localized
/// texts. Limit 4096 bytes. Related APNs documentation: "Generating a remote notification";
/// "Sending notification requests to APNs" (`apns-push-type: alert`, topic without suffix);
/// `docs/apns.md` §1.9.
public struct AlertPushPayload: Codable, Hashable, Sendable {
    public var title: AlertText?
    public var subtitle: AlertText?
    public var body: AlertText?
    /// A sound file of the app bundle, or `"default"`.
    public var sound: String?
    public var badge: Int?
    public var threadID: String?
    public var category: String?
    public var interruptionLevel: InterruptionLevel?
    /// 0 … 1 for ordinary notifications.
    public var relevanceScore: Double?
    public var targetContentID: String?
    /// Lets a notification service extension change the content (`mutable-content: 1`).
    public var mutableContent: Bool
    /// The deep link the app opens on tap, sent as the custom top-level key `link`.
    public var link: String?
    /// Further custom top-level keys; `aps` and `link` are reserved and never taken from here.
    public var custom: [String: JSONValue]

    public init(
        title: AlertText? = nil, subtitle: AlertText? = nil, body: AlertText? = nil, sound: String? = nil,
        badge: Int? = nil, threadID: String? = nil, category: String? = nil, interruptionLevel: InterruptionLevel? = nil,
        relevanceScore: Double? = nil, targetContentID: String? = nil, mutableContent: Bool = false,
        link: String? = nil, custom: [String: JSONValue] = [:]
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.badge = badge
        self.threadID = threadID
        self.category = category
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.targetContentID = targetContentID
        self.mutableContent = mutableContent
        self.link = link
        self.custom = custom
    }

    /// The body to send: compact JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    private enum APSKeys: String, CodingKey {
        case alert, sound, badge, category
        case threadID = "thread-id"
        case interruptionLevel = "interruption-level"
        case relevanceScore = "relevance-score"
        case targetContentID = "target-content-id"
        case mutableContent = "mutable-content"
    }

    private enum AlertKeys: String, CodingKey {
        case title, subtitle, body
        case titleLocKey = "title-loc-key", titleLocArgs = "title-loc-args"
        case subtitleLocKey = "subtitle-loc-key", subtitleLocArgs = "subtitle-loc-args"
        case bodyLocKey = "loc-key", bodyLocArgs = "loc-args"
    }

    public init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: AnyCodingKey.self)
        let aps = try root.nestedContainer(keyedBy: APSKeys.self, forKey: AnyCodingKey("aps"))
        if aps.contains(.alert), let text = try? aps.decode(String.self, forKey: .alert) {
            body = .plain(text)
            title = nil
            subtitle = nil
        } else if aps.contains(.alert) {
            let alert = try aps.nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
            func text(_ plain: AlertKeys, _ key: AlertKeys, _ arguments: AlertKeys) throws -> AlertText? {
                if let locKey = try alert.decodeIfPresent(String.self, forKey: key) {
                    return .localized(key: locKey, arguments: try alert.decodeIfPresent([String].self, forKey: arguments) ?? [])
                }
                return try alert.decodeIfPresent(String.self, forKey: plain).map(AlertText.plain)
            }
            title = try text(.title, .titleLocKey, .titleLocArgs)
            subtitle = try text(.subtitle, .subtitleLocKey, .subtitleLocArgs)
            body = try text(.body, .bodyLocKey, .bodyLocArgs)
        } else {
            title = nil
            subtitle = nil
            body = nil
        }
        sound = try aps.decodeIfPresent(String.self, forKey: .sound)
        badge = try aps.decodeIfPresent(Int.self, forKey: .badge)
        threadID = try aps.decodeIfPresent(String.self, forKey: .threadID)
        category = try aps.decodeIfPresent(String.self, forKey: .category)
        interruptionLevel = try aps.decodeIfPresent(InterruptionLevel.self, forKey: .interruptionLevel)
        relevanceScore = try aps.decodeIfPresent(Double.self, forKey: .relevanceScore)
        targetContentID = try aps.decodeIfPresent(String.self, forKey: .targetContentID)
        mutableContent = try aps.decodeIfPresent(Int.self, forKey: .mutableContent) == 1
        link = try root.decodeIfPresent(String.self, forKey: AnyCodingKey("link"))
        var custom: [String: JSONValue] = [:]
        for key in root.allKeys where key.stringValue != "aps" && key.stringValue != "link" {
            custom[key.stringValue] = try root.decode(JSONValue.self, forKey: key)
        }
        self.custom = custom
    }

    public func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: AnyCodingKey.self)
        var aps = root.nestedContainer(keyedBy: APSKeys.self, forKey: AnyCodingKey("aps"))
        if title != nil || subtitle != nil || body != nil {
            var alert = aps.nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
            func put(_ text: AlertText?, _ plain: AlertKeys, _ key: AlertKeys, _ arguments: AlertKeys) throws {
                switch text {
                case .plain(let value): try alert.encode(value, forKey: plain)
                case .localized(let locKey, let args):
                    try alert.encode(locKey, forKey: key)
                    if !args.isEmpty { try alert.encode(args, forKey: arguments) }
                case nil: break
                }
            }
            try put(title, .title, .titleLocKey, .titleLocArgs)
            try put(subtitle, .subtitle, .subtitleLocKey, .subtitleLocArgs)
            try put(body, .body, .bodyLocKey, .bodyLocArgs)
        }
        try aps.encodeIfPresent(sound, forKey: .sound)
        try aps.encodeIfPresent(badge, forKey: .badge)
        try aps.encodeIfPresent(threadID, forKey: .threadID)
        try aps.encodeIfPresent(category, forKey: .category)
        try aps.encodeIfPresent(interruptionLevel, forKey: .interruptionLevel)
        try aps.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try aps.encodeIfPresent(targetContentID, forKey: .targetContentID)
        if mutableContent { try aps.encode(1, forKey: .mutableContent) }
        try root.encodeIfPresent(link, forKey: AnyCodingKey("link"))
        for (key, value) in custom where key != "aps" && key != "link" {
            try root.encode(value, forKey: AnyCodingKey(key))
        }
    }
}
