// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// Where a Live Activity is in its life cycle (iOS 16.1+; `stale` 16.2+, `pending` 26.0+).
/// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activitystate
@available(iOS 16.1, *)
public enum ActivityState: Codable, Hashable, Sendable {
    /// https://developer.apple.com/documentation/activitykit/activitystate/active
    case active
    /// Ended and no longer visible: a person or the system removed it.
    /// https://developer.apple.com/documentation/activitykit/activitystate/dismissed
    case dismissed
    /// https://developer.apple.com/documentation/activitykit/activitystate/ended
    case ended
    /// https://developer.apple.com/documentation/activitykit/activitystate/stale
    @available(iOS 16.2, *)
    case stale
    /// https://developer.apple.com/documentation/activitykit/activitystate/pending
    @available(iOS 26.0, *)
    case pending
}
