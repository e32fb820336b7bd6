import Foundation

/// One device push: `POST /3/device/<token>` with its headers and JSON body.
///
/// Related APNs documentation: "Sending notification requests to APNs" (docs/apns.md §1.2).
public struct APNSNotification: Sendable, Hashable {
    /// The device token, hex.
    public var deviceToken: String
    public var pushType: APNSPushType
    /// `apns-topic`; for most types derived from the bundle id with `APNSPushType.topic(bundleID:)`.
    public var topic: String
    public var priority: APNSPriority
    /// `apns-expiration`: nil leaves it to APNs' storage policy; `.now`-ish 0 means one attempt only.
    public var expiration: APNSExpiration?
    /// `apns-id`: a lowercase UUID, set by us so it can be logged and a resend keeps it.
    public var apnsID: String
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// The JSON body.
    public var payload: [UInt8]

    public init(
        deviceToken: String, pushType: APNSPushType, topic: String, priority: APNSPriority = .immediate,
        expiration: APNSExpiration? = nil, apnsID: String = UUID().uuidString.lowercased(), collapseID: String? = nil,
        payload: [UInt8]
    ) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.payload = payload
    }

    /// A Live Activity push for an app: topic `<bundle>.push-type.liveactivity`, push type
    /// `liveactivity`.
    public static func liveActivity(
        deviceToken: String, bundleID: String, payload: [UInt8], priority: APNSPriority = .immediate,
        expiration: APNSExpiration? = nil, apnsID: String = UUID().uuidString.lowercased()
    ) -> APNSNotification {
        APNSNotification(
            deviceToken: deviceToken, pushType: .liveActivity, topic: APNSPushType.liveActivity.topic(bundleID: bundleID),
            priority: priority, expiration: expiration, apnsID: apnsID, payload: payload
        )
    }

    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", pushType.rawValue), ("apns-topic", topic), ("apns-priority", String(priority.rawValue)),
            ("apns-id", apnsID),
        ]
        if let expiration { headers.append(("apns-expiration", String(expiration.seconds))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }
}

/// `apns-expiration`: UNIX seconds until which APNs stores and retries the push; 0 means a single
/// delivery attempt and no storage.
public struct APNSExpiration: Sendable, Hashable {
    public var seconds: Int

    public init(seconds: Int) { self.seconds = seconds }

    public static let immediately = APNSExpiration(seconds: 0)

    public static func at(_ date: Date) -> APNSExpiration {
        APNSExpiration(seconds: Int(date.timeIntervalSince1970.rounded(.down)))
    }
}
