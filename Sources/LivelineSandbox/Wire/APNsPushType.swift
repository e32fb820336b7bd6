/// An `apns-push-type` value and the topic it needs.
///
/// Related APNs documentation: "Sending notification requests to APNs", the push type table
/// (`spec/apns.md` §1.3): each type needs its own topic, the bundle ID plus a suffix (none for
/// `alert` and `background`; `mdm` uses the certificate's UID, any topic here). VoIP payloads may
/// be 5120 bytes, every other device push 4096 (§1.5).
public struct APNsPushType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let alert = APNsPushType("alert")
    public static let background = APNsPushType("background")
    public static let complication = APNsPushType("complication")
    public static let controls = APNsPushType("controls")
    public static let fileprovider = APNsPushType("fileprovider")
    public static let liveactivity = APNsPushType("liveactivity")
    public static let location = APNsPushType("location")
    public static let mdm = APNsPushType("mdm")
    public static let pushtotalk = APNsPushType("pushtotalk")
    public static let voip = APNsPushType("voip")
    public static let widgets = APNsPushType("widgets")

    /// Every type APNs lists, with the suffix its topic adds to the bundle ID.
    public static let topicSuffixes: [APNsPushType: String] = [
        .alert: "", .background: "", .complication: ".complication", .controls: ".push-type.controls",
        .fileprovider: ".pushkit.fileprovider", .liveactivity: ".push-type.liveactivity",
        .location: ".location-query", .pushtotalk: ".voip-ptt", .voip: ".voip", .widgets: ".push-type.widgets",
        .mdm: "",
    ]

    /// Whether APNs knows this type.
    public var isKnown: Bool { Self.topicSuffixes[self] != nil }

    /// The suffix this type's topic adds to the bundle ID (nil for `mdm` and unknown types).
    public var topicSuffix: String? { self == .mdm ? nil : Self.topicSuffixes[self] }

    /// The largest payload APNs takes for this type.
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// The type a topic implies when a request names none: the type whose suffix the topic ends
    /// with, else `alert`.
    public static func implied(byTopic topic: String) -> APNsPushType {
        for (type, suffix) in topicSuffixes where !suffix.isEmpty && topic.hasSuffix(suffix) { return type }
        return .alert
    }
}
