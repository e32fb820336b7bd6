// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.
import Foundation

/// The push token for updating widgets and widget relevances (iOS, iPadOS, macOS, watchOS,
/// visionOS 26.0+; `Sendable`). Related Apple documentation:
/// https://developer.apple.com/documentation/widgetkit/widgetpushinfo
@available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
public struct WidgetPushInfo: Sendable {
    /// The push token, valid until `pushTokenDidChange(_:widgets:)` says otherwise. Related Apple
    /// documentation: https://developer.apple.com/documentation/widgetkit/widgetpushinfo/token
    public let token: Data

    private init() { fatalError("stub: type-checking only") }
}
