import Foundation

/// One broadcast push to a channel: `POST /4/broadcasts/apps/<bundleID>` (iOS 18+).
///
/// Related APNs documentation: "Sending broadcast push notification requests to APNs" — no
/// `apns-topic` (Apple's samples send none), `apns-channel-id` names the channel, a no-storage
/// channel accepts only `apns-expiration: 0` (docs/apns.md §1.8).
public struct APNSBroadcast: Sendable, Hashable {
    public var bundleID: String
    /// The base64 channel id APNs assigned.
    public var channelID: String
    public var priority: APNSPriority
    public var expiration: APNSExpiration
    /// `apns-request-id`, echoed back.
    public var requestID: String
    public var payload: [UInt8]

    public init(
        bundleID: String, channelID: String, priority: APNSPriority = .immediate, expiration: APNSExpiration = .immediately,
        requestID: String = UUID().uuidString.lowercased(), payload: [UInt8]
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    public var headers: [(name: String, value: String)] {
        [
            ("apns-push-type", APNSPushType.liveActivity.rawValue), ("apns-channel-id", channelID),
            ("apns-priority", String(priority.rawValue)), ("apns-expiration", String(expiration.seconds)),
            ("apns-request-id", requestID),
        ]
    }
}

/// How a broadcast channel keeps messages for offline devices; fixed when it is created.
public enum APNSChannelStoragePolicy: Int, Sendable, Hashable, Codable {
    /// No message stored: a higher publishing budget; sends must use `apns-expiration: 0`.
    case noMessageStored = 0
    /// The most recent message is kept for up to 8 hours.
    case mostRecentMessageStored = 1
}
