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
        "starts_at", CommonFields.startAt.kind,
        about: "with state pending (optional), and only then: when the system will start the activity; at most 10 minutes past, 7 days ahead")
    /// How far in the past a pending activity's start may lie: the system is about to start it.
    static let startsAtSkew: TimeInterval = 10 * 60
    static let attributesType = FieldRule("attributes_type", .text(length: 1...200), about: "the context's activity type, if given")
    static let rev = FieldRule("rev", .integer(0...Int(Int32.max)), about: "the revision the device rendered")

    /// A report's `starts_at`: a date-time (else 400), only with `pending`, at most 7 days ahead of
    /// `now` and at most ``startsAtSkew`` before it (else 422: well-formed, but not a date a
    /// scheduled activity can have). A pending
    /// report may leave it out (the app saw the state and no longer knows the date).
    static func startsAt(_ text: String?, state: ActivityReport.State, now: Date) throws -> Date? {
        guard let text else { return nil }
        guard let date = RFC3339.date(fromDateTime: try startsAt.text(text)) else { throw startsAt.refusal(text) }
        guard state == .pending else {
            throw HTTPError(status: 422, code: "outOfRange", message: "starts_at goes only with state pending", field: "starts_at")
        }
        guard date <= now.addingTimeInterval(7 * 86_400) else {
            throw HTTPError(status: 422, code: "outOfRange", message: "starts_at must be at most 7 days ahead, not \(text)", field: "starts_at")
        }
        guard date >= now.addingTimeInterval(-startsAtSkew) else {
            throw HTTPError(
                status: 422, code: "outOfRange",
                message: "starts_at lies more than \(Int(startsAtSkew / 60)) minutes in the past (\(text)): a pending activity starts at it",
                field: "starts_at")
        }
        return date
    }
}
