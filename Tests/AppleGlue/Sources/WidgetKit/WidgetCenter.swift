// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// The object that reloads the timelines of the app's widgets (iOS 14.0+, macOS 11.0+, watchOS
/// 9.0+, visionOS 26.0+). Related Apple documentation:
/// https://developer.apple.com/documentation/widgetkit/widgetcenter
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public final class WidgetCenter {
    /// The shared widget center. Related Apple documentation:
    /// https://developer.apple.com/documentation/widgetkit/widgetcenter/shared
    nonisolated(unsafe) public static let shared = WidgetCenter()

    private init() {}

    /// Reloads the timelines of every widget of `kind`. Related Apple documentation:
    /// https://developer.apple.com/documentation/widgetkit/widgetcenter/reloadtimelines(ofkind:)
    public func reloadTimelines(ofKind kind: String) {
        fatalError("stub: type-checking only")
    }

    /// The current push information for widget reloads (iOS, macOS, watchOS, visionOS 26.0+); nil
    /// until the token is generated or when no widget is configured for push. Related Apple
    /// documentation: https://developer.apple.com/documentation/widgetkit/widgetcenter/currentpushinfo
    @available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
    public var currentPushInfo: WidgetPushInfo? {
        get async { fatalError("stub: type-checking only") }
    }

    /// Reloads the timelines of every widget of the app. Related Apple documentation:
    /// https://developer.apple.com/documentation/widgetkit/widgetcenter/reloadalltimelines()
    public func reloadAllTimelines() {
        fatalError("stub: type-checking only")
    }
}
