/// The `apns-push-type` header, and the topic each type needs.
///
/// Values Apple defines are static members; an unknown value is kept as sent.
/// Related APNs documentation: "Sending notification requests to APNs" (apns.md §1.3).
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

    /// The `apns-topic` for this type and an app's bundle id: the bundle id plus the type's suffix
    /// (a Live Activity: `<bundle>.push-type.liveactivity`). `mdm` uses the certificate's topic:
    /// the bundle id is returned as given.
    public func topic(bundleID: String) -> String {
        switch self {
        case .complication: bundleID + ".complication"
        case .controls: bundleID + ".push-type.controls"
        case .fileProvider: bundleID + ".pushkit.fileprovider"
        case .liveActivity: bundleID + ".push-type.liveactivity"
        case .location: bundleID + ".location-query"
        case .pushToTalk: bundleID + ".voip-ptt"
        case .voip: bundleID + ".voip"
        case .widgets: bundleID + ".push-type.widgets"
        default: bundleID
        }
    }

    /// The largest body APNs accepts for this type: 5120 bytes for VoIP, else 4096.
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    public var description: String { rawValue }
}
