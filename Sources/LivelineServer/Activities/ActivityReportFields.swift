import Foundation
import LivelineAPI
import LivelineHTTP
import LivelineStore

/// The input fields of the app's activity reports, declared once (``FieldRule``).
enum ActivityReportFields {
    static let contextKey = CommonFields.contextKey.named("context_key")
    static let state = FieldRule(
        "state", .oneOf(ActivityReport.State.allCases.map(\.rawValue)),
        about: "ActivityKit's activityState: pending (scheduled by the app, iOS 26), active or ended")
    static let style = FieldRule(
        "style", .oneOf(ActivityReport.Style.allCases.map(\.rawValue)),
        about: "ActivityKit's ActivityStyle (iOS 18; default standard): a transient activity is never renewed")
    static let startsAt = FieldRule(
        "starts_at", ContextFields.startAt.kind,
        about: "with state pending, and only then: when the system will start the activity; at most 7 days ahead")
    static let attributesType = FieldRule("attributes_type", .text(length: 1...200), about: "the context's activity type, if given")
    static let rev = FieldRule("rev", .integer(0...Int(Int32.max)), about: "the revision the device rendered")

    /// A report's `starts_at`: required with `pending`, refused otherwise, at most 7 days ahead of `now`.
    static func startsAt(_ text: String?, state: ActivityReport.State, now: Date) throws -> Date? {
        guard state == .pending else {
            if text != nil { throw HTTPError.badRequest("starts_at goes only with state pending", field: "starts_at") }
            return nil
        }
        guard let text else { throw HTTPError.badRequest("starts_at is required with state pending", field: "starts_at") }
        guard let date = RFC3339.date(fromDateTime: try startsAt.text(text)) else { throw startsAt.refusal(text) }
        guard date <= now.addingTimeInterval(7 * 86_400) else {
            throw HTTPError.badRequest("starts_at must be at most 7 days ahead, not \(text)", field: "starts_at")
        }
        return date
    }
}
