import Foundation

/// The numbers of ActivityKit's rules (`docs/devices.md`); the undocumented ones are configurable.
public struct DeviceRules: Sendable, Hashable {
    /// An activity ends by itself this long after it started.
    public var lifetime: TimeInterval = 8 * 3600
    /// An ended activity stays on the lock screen at most this long.
    public var dismissalCap: TimeInterval = 4 * 3600
    /// An update whose timestamp is further ahead than this is dropped.
    public var futureTimestampLimit: TimeInterval = 8 * 3600
    /// Concurrent activities per app (more starts fail: `targetMaximumExceeded`).
    public var maximumActivities = 5
    /// Push-to-starts per device within `startBudgetWindow` (beyond: "push-to-start budget exceeded").
    public var startBudget = 10
    public var startBudgetWindow: TimeInterval = 3600
    /// Priority-10 updates per activity per hour before it is throttled (undocumented; configurable).
    public var priorityBudget = 12
    /// The same with "frequent updates" allowed.
    public var frequentPriorityBudget = 36
    /// Push-driven reloads per widget within `widgetReloadWindow` before a push is throttled.
    /// Apple, "Keeping a widget up to date"
    /// (https://developer.apple.com/documentation/widgetkit/keeping-a-widget-up-to-date): each
    /// widget has its own budget over 24 hours, "typically from 40 to 70 refreshes" for one the
    /// user views often; the device takes the low end, so what fits here fits a real phone.
    /// WidgetKit pushes draw on it ("Updating widgets with WidgetKit push notifications").
    public var widgetReloadBudget = 40
    /// The budget's window: 24 hours (Apple tunes it to the user's day; here it slides).
    public var widgetReloadWindow: TimeInterval = 24 * 3600

    public init() {}
}
