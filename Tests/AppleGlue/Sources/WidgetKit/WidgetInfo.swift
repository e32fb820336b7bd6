// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// A user-configured widget (iOS 14.0+, macOS 11.0+, watchOS 9.0+, visionOS 26.0+; declared
/// `@preconcurrency struct WidgetInfo`, no `Sendable` listed). Related Apple documentation:
/// https://developer.apple.com/documentation/widgetkit/widgetinfo
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public struct WidgetInfo {
    /// The string given when the widget's configuration was created. Related Apple documentation:
    /// https://developer.apple.com/documentation/widgetkit/widgetinfo/kind
    public let kind: String

    private init() { fatalError("stub: type-checking only") }
}
