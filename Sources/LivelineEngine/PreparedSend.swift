import LivelineModel
import LivelinePushWire
import LivelineStore

/// One request to APNs (or to a browser's push service) and what it is for.
struct PreparedSend: Sendable {
    enum Request: Sendable {
        case device(APNSNotification)
        case broadcast(APNSBroadcast)
        case deleteChannel(String)
        /// Encrypted and signed, to a browser subscription's push service.
        case webPush(WebPushRequest)
    }

    let target: OutboxTarget
    let request: Request
    let priority: Int
    /// What it is, for the timeline (`update rev 3 · p10: …`, `start rev 1 on device phone-2`).
    let note: String
    /// A material change sent at 5 because the activity's hourly budget was used.
    var budgetLimited = false
    /// The token's APNs environment (nil: the default one).
    var environment: PushEnvironment? = nil
    /// Where the token is tried once more if `environment` answers `BadDeviceToken`: the other
    /// environment, for a token whose environment was the server's default guess.
    var fallbackEnvironment: PushEnvironment? = nil

    /// Who answers it, for messages: "APNs" or "the push service".
    var service: String {
        if case .webPush = request { "the push service" } else { "APNs" }
    }
}
