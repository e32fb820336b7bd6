#if canImport(WidgetKit) && (os(iOS) || LIVELINE_APPLE_GLUE)
import Foundation
import WidgetKit

/// The WidgetKit side of ``WidgetPushRegistration`` (iOS, iPadOS, macOS, watchOS, visionOS 26+),
/// for a widget extension's push handler:
///
/// ```swift
/// struct ShoppingWidgetPushHandler: WidgetPushHandler {
///     func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo]) {
///         let registration = WidgetPushRegistration(pushInfo, widgets: widgets)
///         // A `widgets` token with its widget kinds (docs/sdk.md, "Widget pushes").
///         Task { try await client.register(widgets: registration) }
///     }
/// }
/// ```
///
/// Related Apple documentation: "Updating widgets with WidgetKit push notifications",
/// https://developer.apple.com/documentation/widgetkit/widgetpushhandler/pushtokendidchange(_:widgets:)
/// and https://developer.apple.com/documentation/widgetkit/widgetcenter/currentpushinfo.
@available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
extension WidgetPushRegistration {
    /// What `pushTokenDidChange(_:widgets:)` was given: the token and the kinds of `widgets`.
    public init(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo]) {
        self.init(token: pushInfo.token, kinds: widgets.map(\.kind))
    }

    /// The current token (`WidgetCenter.currentPushInfo`, e.g. at the app's launch) for widgets of
    /// `kinds`; nil while WidgetKit has none yet or no widget is configured for push.
    public static func current(kinds: [String]) async -> WidgetPushRegistration? {
        guard let pushInfo = await WidgetCenter.shared.currentPushInfo else { return nil }
        return WidgetPushRegistration(token: pushInfo.token, kinds: kinds)
    }
}
#endif
