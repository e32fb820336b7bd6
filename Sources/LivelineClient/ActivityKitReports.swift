#if canImport(ActivityKit) && (os(iOS) || LIVELINE_APPLE_GLUE)
import ActivityKit
import Foundation
import LivelineModel

extension ReportedActivityState {
    /// ActivityKit's state as the server follows it: `pending` (iOS 26,
    /// https://developer.apple.com/documentation/activitykit/activitystate/pending) stays pending,
    /// `active` and `stale` are active, `ended` and `dismissed` ended.
    @available(iOS 16.1, *)
    public init(_ state: ActivityState) {
        if #available(iOS 26.0, *), state == .pending {
            self = .pending
            return
        }
        switch state {
        case .ended, .dismissed: self = .ended
        default: self = .active
        }
    }
}

extension ReportedActivityStyle {
    /// ActivityKit's style (https://developer.apple.com/documentation/activitykit/activitystyle):
    /// `.transient` (https://developer.apple.com/documentation/activitykit/activitystyle/transient).
    @available(iOS 16.1, *)
    public init(_ style: ActivityStyle) {
        self = style == .transient ? .transient : .standard
    }
}

extension LivelineClient {
    /// Reports `activity` as ActivityKit has it now: its state, and `startsAt` (the `start:` the
    /// app passed to `Activity.request(…alertConfiguration:start:)`) while it is pending.
    @available(iOS 16.1, *)
    @discardableResult
    public func reportActivity<Attributes: ActivityAttributes>(
        _ activity: Activity<Attributes>, contextKey: String, style: ActivityStyle, startsAt: Date? = nil
    ) async throws -> ActivityStateResponse {
        let state = ReportedActivityState(activity.activityState)
        return try await reportActivity(
            contextKey: contextKey, state: state, startsAt: state == .pending ? startsAt : nil, style: ReportedActivityStyle(style),
            attributesType: String(describing: Attributes.self), activityID: activity.id)
    }
}
#endif
