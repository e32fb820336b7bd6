import Foundation

// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// When the system removes a Live Activity that ended (iOS 16.1+). Related Apple documentation:
/// https://developer.apple.com/documentation/activitykit/activityuidismissalpolicy
@available(iOS 16.1, *)
public struct ActivityUIDismissalPolicy: Sendable {
    private init() {}

    /// Up to four hours on the Lock Screen. Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityuidismissalpolicy/default
    public static let `default` = ActivityUIDismissalPolicy()

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityuidismissalpolicy/immediate
    public static let immediate = ActivityUIDismissalPolicy()

    /// At `date`, within four hours of the end. Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityuidismissalpolicy/after(_:)
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy { fatalError("stub: type-checking only") }
}
