import Foundation
import LivelineModel

/// Where the app's own activity stands, as ActivityKit's `ActivityState` says it
/// (https://developer.apple.com/documentation/activitykit/activitystate): the server follows
/// `pending`, `active` and `ended` (`docs/sdk.md`, "Reporting the app's own activities").
public enum ReportedActivityState: String, Sendable, Hashable {
    /// Scheduled with `Activity.request(…start:)` (iOS 26) and not started yet.
    case pending
    case active
    case ended
}

/// The style the app requested its activity with, as ActivityKit's `ActivityStyle` (iOS 18,
/// https://developer.apple.com/documentation/activitykit/activitystyle).
public enum ReportedActivityStyle: String, Sendable, Hashable {
    case standard
    /// Ends when the person leaves the app: the server never renews it.
    case transient
}

extension LivelineClient {
    /// Tells the server how the app's own activity of `contextKey` stands on this device
    /// (`POST /api/la/activity`): `pending` with the date the system starts it (`startsAt`,
    /// optional then), then `active`, then `ended`; `style` as requested (nil: as reported before).
    /// `activityID` (`Activity.id`, also given with the card's update token) ties the report to
    /// that card: `ended` ends its tokens, and a transient card is never renewed.
    @discardableResult
    public func reportActivity(
        contextKey: String, state: ReportedActivityState, startsAt: Date? = nil, style: ReportedActivityStyle? = nil,
        attributesType: String? = nil, activityID: String? = nil
    ) async throws -> ActivityStateResponse {
        try await call(
            Routes.activityState,
            body: ActivityStateReport(
                contextKey: contextKey, attributesType: attributesType, deviceID: deviceID, state: state.rawValue,
                startsAt: startsAt.map { $0.formatted(.iso8601) }, style: style?.rawValue, activityID: activityID))
    }
}
