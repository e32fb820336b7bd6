import Foundation

/// What the app reports of its own activity of a context on one device (`POST /api/la/activity`;
/// `docs/engine.md`, "App-reported activities").
public struct ActivityReport: Sendable, Hashable {
    /// ActivityKit's `ActivityState` as far as the server follows it.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Scheduled by the app (`Activity.request(…start:)`, iOS 26): the system starts it at `startsAt`.
        case pending
        case active
        case ended
    }

    /// ActivityKit's `ActivityStyle` (iOS 18).
    public enum Style: String, Sendable, Hashable, CaseIterable {
        case standard
        /// Ends when the person leaves the app: never renewed, never followed for hours.
        case transient
    }

    public var contextKey: String
    public var householdID: HouseholdID
    public var deviceID: String
    /// ActivityKit's `Activity.id`; '' when the app sent none (then the device's newest report
    /// without one stands for its activity of the context).
    public var activityID: String
    public var userID: UserID
    public var state: State
    public var style: Style
    public var startsAt: Date?
    public var reportedAt: Date

    /// How the timeline and the dashboard say it: `pending until 2026-06-18T08:00:00Z`, `active`
    /// or `ended`, then `· transient` for a transient one.
    public var summary: String {
        let state =
            if state == .pending, let startsAt { "pending until \(startsAt.formatted(.iso8601))" } else { state.rawValue }
        return style == .transient ? "\(state) · transient" : state
    }

    public init(
        contextKey: String, householdID: HouseholdID, deviceID: String, activityID: String = "", userID: UserID, state: State, style: Style,
        startsAt: Date?, reportedAt: Date
    ) {
        self.activityID = activityID
        self.contextKey = contextKey
        self.householdID = householdID
        self.deviceID = deviceID
        self.userID = userID
        self.state = state
        self.style = style
        self.startsAt = startsAt
        self.reportedAt = reportedAt
    }
}

extension ActivityReportRepository {
    /// Records the newest report of a device's activity of the context (one row per context,
    /// device and activity; a later report replaces it).
    public func recordActivity(_ report: ActivityReport, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            INSERT INTO la_activity_reports (context_key, household_id, device_id, user_id, state, style, starts_at, reported_at, activity_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (context_key, household_id, device_id, activity_id) DO UPDATE SET
                user_id = excluded.user_id, state = excluded.state, style = excluded.style, starts_at = excluded.starts_at,
                reported_at = excluded.reported_at
            """,
            [
                .text(report.contextKey), SQLValue(report.householdID), .text(report.deviceID), SQLValue(report.userID),
                .text(report.state.rawValue), .text(report.style.rawValue), SQLValue(report.startsAt), SQLValue(report.reportedAt),
                .text(report.activityID),
            ]
        )
    }

    /// The context's reported activities, by household and device.
    public func activities(contextKey: String, in transaction: any SQLTransaction) throws -> [ActivityReport] {
        try transaction.query(
            """
            SELECT context_key, household_id, device_id, activity_id, user_id, state, style, starts_at, reported_at FROM la_activity_reports
            WHERE context_key = $1 ORDER BY household_id, device_id, reported_at, activity_id
            """, [.text(contextKey)]
        ).map(Self.report(row:))
    }

    static func report(row: Row) throws -> ActivityReport {
        ActivityReport(
            contextKey: try row.string("context_key"), householdID: HouseholdID(try row.int("household_id")),
            deviceID: try row.string("device_id"), activityID: try row.string("activity_id"), userID: UserID(try row.int("user_id")),
            state: ActivityReport.State(rawValue: try row.string("state")) ?? .active,
            style: ActivityReport.Style(rawValue: try row.string("style")) ?? .standard, startsAt: try row.optionalDate("starts_at"),
            reportedAt: try row.date("reported_at"))
    }

    public func activities(contextKey: String) throws -> [ActivityReport] {
        try database.read { transaction in try activities(contextKey: contextKey, in: transaction) }
    }

    /// The report of `activityID` on the device, or with none the device's newest report
    /// without an activity id.
    public func activity(
        contextKey: String, householdID: HouseholdID, deviceID: String, activityID: String?, in transaction: any SQLTransaction
    ) throws -> ActivityReport? {
        try transaction.queryOne(
            """
            SELECT context_key, household_id, device_id, activity_id, user_id, state, style, starts_at, reported_at FROM la_activity_reports
            WHERE context_key = $1 AND household_id = $2 AND device_id = $3 AND activity_id = $4
            """, [.text(contextKey), SQLValue(householdID), .text(deviceID), .text(activityID ?? "")]
        ).map(Self.report(row:))
    }

    /// Marks the user's running activities of the context ended (they dismissed its card).
    public func endActivities(contextKey: String, userID: UserID, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            UPDATE la_activity_reports SET state = 'ended', starts_at = NULL, reported_at = $3
            WHERE context_key = $1 AND user_id = $2 AND state IN ('pending', 'active')
            """, [.text(contextKey), SQLValue(userID), SQLValue(now)])
    }

    /// Forgets the context's reports (a new card of it begins: `EngineWrite.reopen`).
    public func clearActivities(contextKey: String, in transaction: any SQLTransaction) throws {
        try transaction.execute("DELETE FROM la_activity_reports WHERE context_key = $1", [.text(contextKey)])
    }
}
