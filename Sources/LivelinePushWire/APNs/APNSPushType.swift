/// The `apns-push-type` header, and the topic each type needs.
///
/// Values Apple defines are static members; an unknown value is kept as sent. Used by the client
/// that sends and by the sandbox that checks (one table for both).
/// Related APNs documentation: "Sending notification requests to APNs", the push type table:
/// each type needs its own topic, the bundle ID plus a suffix (none for `alert` and `background`;
/// `mdm` uses the certificate's UID). VoIP payloads may be 5120 bytes, every other device push 4096.
public struct APNSPushType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let alert = APNSPushType(rawValue: "alert")
    public static let background = APNSPushType(rawValue: "background")
    public static let complication = APNSPushType(rawValue: "complication")
    public static let controls = APNSPushType(rawValue: "controls")
    public static let fileProvider = APNSPushType(rawValue: "fileprovider")
    public static let liveActivity = APNSPushType(rawValue: "liveactivity")
    public static let location = APNSPushType(rawValue: "location")
    public static let mdm = APNSPushType(rawValue: "mdm")
    public static let pushToTalk = APNSPushType(rawValue: "pushtotalk")
    public static let voip = APNSPushType(rawValue: "voip")
    public static let widgets = APNSPushType(rawValue: "widgets")

    public static let all: [APNSPushType] = [
        .alert, .background, .complication, .controls, .fileProvider, .liveActivity, .location, .mdm, .pushToTalk, .voip, .widgets,
    ]

    /// Every type APNs lists, with the suffix its topic adds to the bundle ID (`mdm`: none, it
    /// uses the certificate's topic).
    public static let topicSuffixes: [APNSPushType: String] = [
        .alert: "", .background: "", .complication: ".complication", .controls: ".push-type.controls",
        .fileProvider: ".pushkit.fileprovider", .liveActivity: ".push-type.liveactivity",
        .location: ".location-query", .pushToTalk: ".voip-ptt", .voip: ".voip", .widgets: ".push-type.widgets",
        .mdm: "",
    ]

    /// Whether APNs knows this type.
    public var isKnown: Bool { Self.topicSuffixes[self] != nil }

    /// The suffix this type's topic adds to the bundle ID (nil for `mdm` and unknown types).
    public var topicSuffix: String? { self == .mdm ? nil : Self.topicSuffixes[self] }

    /// The `apns-topic` for this type and an app's bundle id: the bundle id plus the type's suffix
    /// (a Live Activity: `<bundle>.push-type.liveactivity`). `mdm` and unknown types: the bundle
    /// id as given.
    public func topic(bundleID: String) -> String { bundleID + (topicSuffix ?? "") }

    /// The type a topic implies when a request names none: the type whose suffix the topic ends
    /// with, else `alert`.
    public static func implied(byTopic topic: String) -> APNSPushType {
        for (type, suffix) in topicSuffixes where !suffix.isEmpty && topic.hasSuffix(suffix) { return type }
        return .alert
    }

    /// The largest body APNs accepts for this type: 5120 bytes for VoIP, else 4096.
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    public var description: String { rawValue }
}
