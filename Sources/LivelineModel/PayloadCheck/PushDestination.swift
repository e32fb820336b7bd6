/// Where a Live Activity push goes, which sets the APNs body limit.
///
/// Related APNs documentation: "Generating a remote notification" and "Sending notification
/// requests to APNs" (4096 bytes for a device push); "Sending broadcast push notification
/// requests to APNs" (5120 bytes); `docs/apns.md` §1.5 "Size limits".
public enum PushDestination: String, Sendable, Hashable, CaseIterable {
    /// `POST /3/device/<token>`: at most 4096 bytes.
    case device
    /// `POST /4/broadcasts/apps/<bundleID>`: at most 5120 bytes; cannot start an activity.
    case broadcast

    /// The largest body APNs accepts, in bytes.
    public var bodyLimit: Int {
        switch self {
        case .device: 4096
        case .broadcast: 5120
        }
    }
}
