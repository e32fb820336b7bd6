import Foundation

/// A row of `la_renewals`: one device's renewal of a context's activity before one 8-hour
/// deadline (`docs/engine.md`, "Renewal").
public struct RenewalRecord: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        /// The successor's push-to-start is queued or on its way.
        case starting
        /// APNs accepted the successor's start; the predecessor's end is queued.
        case renewed
        /// No successor on this device (the reason says why): the predecessor ends at its limit.
        case refused
        /// The predecessor's end at its limit is queued.
        case ended
    }

    public var id: Int
    public var contextKey: String
    public var householdID: HouseholdID
    public var deviceID: String
    /// The predecessor's `la-update` token.
    public var oldTokenID: PushTokenID
    /// The successor's start (`la_starts`), when one was queued.
    public var startID: Int?
    /// The deadline the renewal is for (the predecessor's).
    public var deadlineAt: Date
    public var status: Status
    public var reason: String?
    public var updatedAt: Date

    static let columns = "id, context_key, household_id, device_id, old_token_id, start_id, deadline_at, status, reason, updated_at"

    init(row: Row) throws {
        guard let status = Status(rawValue: try row.string("status")) else {
            throw StoreError(.column, "la_renewals.status holds an unknown status")
        }
        id = try row.int("id")
        contextKey = try row.string("context_key")
        householdID = HouseholdID(try row.int("household_id"))
        deviceID = try row.string("device_id")
        oldTokenID = PushTokenID(try row.int("old_token_id"))
        startID = try row.optionalInt("start_id")
        deadlineAt = try row.date("deadline_at")
        self.status = status
        reason = try row.optionalString("reason")
        updatedAt = try row.date("updated_at")
    }
}
