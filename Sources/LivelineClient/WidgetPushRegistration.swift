import Foundation

/// What a widget extension hands its server for WidgetKit pushes (`docs/sdk.md`, "Widget pushes"):
/// the push token as lower-case hex and the kinds of the widgets that take pushes.
///
/// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
/// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications):
/// the extension's `WidgetPushHandler` gets one token (`WidgetPushInfo.token`) for all its widgets
/// that take pushes and their `WidgetInfo` (whose `kind` is the string of the widget's
/// configuration), on the first token and on every change of the token or of the widgets the
/// person configured; APNs takes the token as hex in the request's path ("Sending notification
/// requests to APNs"). On iOS, ``init(_:widgets:)`` builds it from those values.
public struct WidgetPushRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The WidgetKit push token, lower-case hex.
    public var token: String
    /// The kinds of the widgets that take pushes, sorted, each once (a person may place two
    /// widgets of one kind).
    public var kinds: [String]

    /// The registration of `token` (raw bytes, as WidgetKit gives it) for widgets of `kinds`.
    public init(token: Data, kinds: [String]) {
        self.init(hexToken: token.map { String(format: "%02x", $0) }.joined(), kinds: kinds)
    }

    /// The registration of a token already in hex (any case) for widgets of `kinds`; empty kinds
    /// are left out.
    public init(hexToken: String, kinds: [String]) {
        token = hexToken.lowercased()
        self.kinds = Set(kinds.filter { !$0.isEmpty }).sorted()
    }

    public var description: String { "widget push token \(token.prefix(8))… for \(kinds.joined(separator: ", "))" }
}
