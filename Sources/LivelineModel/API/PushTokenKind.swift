/// The kinds of push token an app registers (`docs/engine.md`, "Push tokens").
public enum PushTokenKind: String, JSONEnum, Sendable, Hashable {
    /// The app's ordinary APNs device token; one per device.
    case alert
    /// The ActivityKit push-to-start token (iOS 17.2+); one per device and attributes type.
    case pushToStart = "la-pushToStart"
    /// The update token of one running Live Activity; one per device and context key.
    case update = "la-update"
    /// A browser subscription `{endpoint, keys: {p256dh, auth}}`; one per endpoint.
    case webPush = "web-push"
    /// A widget extension's WidgetKit push token (iOS 26), with the kinds of the widgets it
    /// serves; one per device.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    case widgets
}

/// The APNs environment a token belongs to; sandbox and production tokens never mix.
public enum PushEnvironment: String, JSONEnum, Sendable, Hashable {
    case sandbox
    case production
}
