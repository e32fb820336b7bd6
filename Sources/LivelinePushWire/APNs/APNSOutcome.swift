import Foundation

/// What a provider should do about an APNs answer: one classification for every status and
/// reason (docs/apns.md §1.6 and docs/engine.md "Retries").
public enum APNSOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Accepted by APNs (200; 201/204 for channel management).
    case delivered
    /// Send again later, with backoff and jitter: 5xx, 429 `TooManyRequests` (per token),
    /// `TooManyProviderTokenUpdates`, connection failures. `newConnection` when the request must
    /// go on another connection (`Shutdown`, `UnrelatedKeyIdInToken`).
    case retry(newConnection: Bool)
    /// The provider token was refused as expired: mint a new one and send again once.
    case rotateToken
    /// The device token is no longer good: stop sending to it. For 410 `timestamp` says since
    /// when (compare it with the token's last registration); `BadDeviceToken` and
    /// `DeviceTokenNotForTopic` carry none.
    case tokenDead(since: Date?)
    /// Never retry as it is: the request or the configuration is wrong (payload too large,
    /// bad topic, forbidden, bad path, …).
    case permanent

    /// Classifies a response status and reason. Unknown reasons fall back on their status class.
    public static func classify(status: Int, reason: APNSReason?, timestamp: Date? = nil) -> APNSOutcome {
        if (200..<300).contains(status) { return .delivered }
        switch reason {
        case .badDeviceToken?, .deviceTokenNotForTopic?:
            return .tokenDead(since: nil)
        case .unregistered?, .expiredToken?:
            return .tokenDead(since: timestamp)
        case .expiredProviderToken?:
            return .rotateToken
        case .unrelatedKeyIDInToken?, .shutdown?, .idleTimeout?:
            return .retry(newConnection: true)
        case .tooManyRequests?, .tooManyProviderTokenUpdates?, .internalServerError?, .serviceUnavailable?:
            return .retry(newConnection: false)
        default:
            break
        }
        switch status {
        case 410: return .tokenDead(since: timestamp)
        case 429, 500...599: return .retry(newConnection: false)
        default: return .permanent
        }
    }

    public var description: String {
        switch self {
        case .delivered: "delivered"
        case .retry(let newConnection): newConnection ? "retry (new connection)" : "retry"
        case .rotateToken: "rotate provider token"
        case .tokenDead: "token dead"
        case .permanent: "permanent failure"
        }
    }
}
