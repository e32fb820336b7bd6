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

    /// The body of every WidgetKit push, `{"aps":{"content-changed":true}}`.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications):
    /// the `aps` dictionary sets `content-changed` to `true`; the push carries no data, the widget's
    /// timeline provider reads what it shows.
    public static let widgetsPayload = Array(#"{"aps":{"content-changed":true}}"#.utf8)

    /// A WidgetKit push (iOS 26): push type `widgets`, topic `<bundle>.push-type.widgets`, body
    /// ``widgetsPayload``; the system then reloads the app's widget timelines within their budget.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications" and
    /// "Sending notification requests to APNs", the `widgets` push type
    /// (https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns).
    /// Apple names no priority for it (its sample sends none: APNs takes 10).
    public static func widgets(
        deviceToken: String, bundleID: String, priority: APNSPriority = .immediate, expiration: APNSExpiration? = nil,
        apnsID: String = UUID().uuidString.lowercased()
    ) -> APNSNotification {
        APNSNotification(
            deviceToken: deviceToken, pushType: .widgets, topic: APNSPushType.widgets.topic(bundleID: bundleID), priority: priority,
            expiration: expiration, apnsID: apnsID, payload: widgetsPayload
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
