// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// How a Live Activity receives ActivityKit pushes: its own token, or a broadcast channel
/// (iOS 16.1+; `channel(_:)` 18.0+). Related Apple documentation:
/// https://developer.apple.com/documentation/activitykit/pushtype
@available(iOS 16.1, *)
public struct PushType {
    private init() {}

    /// Updates through the activity's own push token. Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/pushtype/token
    public static var token: PushType { fatalError("stub: type-checking only") }

    /// Updates through the broadcast channel `name` (base64). Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/pushtype/channel(_:)
    @available(iOS 18.0, *)
    public static func channel(_ name: String) -> PushType { fatalError("stub: type-checking only") }
}
