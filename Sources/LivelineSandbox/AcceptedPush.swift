import Foundation

/// A push the sandbox accepted (answered 200), as received.
public struct AcceptedPush: Sendable, Hashable {
    /// `apns-id` as sent or generated; for a broadcast, the `apns-request-id` answered.
    public var apnsID: String
    /// `apns-push-type` as sent (lower-cased), or the one the topic implies when none was sent.
    public var pushType: String
    /// `apns-topic`; nil when none was sent (broadcasts).
    public var topic: String?
    /// `apns-priority`, or the default (10; 5 for `background`).
    public var priority: Int
    /// `apns-expiration` in seconds since 1970, when sent.
    public var expiration: Int?
    public var collapseID: String?
    /// The body, byte for byte.
    public var payload: [UInt8]
    /// The sandbox clock's time when it was accepted.
    public var receivedAt: Date
    /// The device token (lower-case hex) of a device push.
    public var token: String?
    /// The channel of a broadcast.
    public var channelID: String?
    /// The HTTP/2 connection it came on.
    public var connectionID: UInt64

    public init(
        apnsID: String, pushType: String, topic: String?, priority: Int, expiration: Int?, collapseID: String?,
        payload: [UInt8], receivedAt: Date, token: String?, channelID: String?, connectionID: UInt64
    ) {
        self.apnsID = apnsID
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.receivedAt = receivedAt
        self.token = token
        self.channelID = channelID
        self.connectionID = connectionID
    }

    /// The payload as text (pushes are JSON).
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }
}
