import Foundation

/// How a change reaches the widgets that show it (`docs/engine.md`, "Widget pushes"): which
/// widget kinds show which activity types, and the least time between two widget pushes to one
/// device.
///
/// A widget kind is a feature's name (its widget shows the household's contexts of the
/// feature's types) or an activity type's name (the household's contexts of that type). Apple
/// budgets a widget's reloads (a widget viewed often gets 40 to 70 a day) and counts those a
/// push asks for; one push per ``interval`` keeps a device inside the low end of it.
///
/// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
/// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications)
/// and "Keeping a widget up to date"
/// (https://developer.apple.com/documentation/widgetkit/keeping-a-widget-up-to-date).
public struct WidgetPushes: Sendable, Hashable {
    /// The default ``interval``: 40 minutes, at most 36 pushes a day, below the 40 reloads Apple
    /// gives the widgets viewed least of those viewed often.
    public static let defaultInterval: TimeInterval = 40 * 60

    /// The least time between two widget pushes to one device; changes meanwhile go out
    /// together in one trailing push.
    public var interval: TimeInterval
    /// The activity types each feature's widget kind shows, by the feature's name.
    public var typesByFeature: [String: Set<String>]

    public init(interval: TimeInterval = Self.defaultInterval, typesByFeature: [String: Set<String>] = [:]) {
        self.interval = max(0, interval)
        self.typesByFeature = typesByFeature
    }

    /// The widget kinds that show a context of `activityType`: the type's own name and the
    /// names of the features it belongs to.
    public func kinds(showing activityType: String) -> Set<String> {
        Set(typesByFeature.filter { $0.value.contains(activityType) }.keys).union([activityType])
    }
}
