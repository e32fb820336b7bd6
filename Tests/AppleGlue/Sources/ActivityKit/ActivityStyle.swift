// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// How a Live Activity is shown: `standard`, or `transient` (ends when the person leaves the
/// app; requested with `Activity.request(attributes:content:pushType:style:)`, iOS 18).
/// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activitystyle
@available(iOS 16.1, *)
public enum ActivityStyle: Hashable, Sendable {
    /// https://developer.apple.com/documentation/activitykit/activitystyle/standard
    case standard
    /// https://developer.apple.com/documentation/activitykit/activitystyle/transient
    case transient
}
