import Foundation

/// One push-to-start of a context on one device (`la_starts`; `docs/engine.md`, "Lifecycle": starts are
/// idempotent per context and device).
public struct StartRecord: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        /// The start push is in the outbox.
        case queued
        /// APNs accepted it.
        case sent
        /// APNs refused it for good (see `reason`).
        case failed
        /// Not sent: the device's start budget was used up (see `reason`); a later call may send it.
        case skipped
    }

    public var id: Int
    public var contextKey: String
    /// The device is its household's device id (device ids are chosen by apps).
    public var householdID: HouseholdID
    public var deviceID: String
    public var userID: UserID
    /// The `la-pushToStart` token it was (or would be) sent to.
    public var tokenID: PushTokenID
    public var status: Status
    public var reason: String?
    /// Sent with `input-push-channel`: the activity follows the channel and sends no update token.
    public var viaChannel: Bool
    public var createdAt: Date
    public var updatedAt: Date
    public var sentAt: Date?
    /// When the device answered the start: registered its `la-update` token for the context, or
    /// reported rendering it.
    public var updateTokenAt: Date?
    /// When the start was given up on as unanswered (no update token in time).
    public var suspectAt: Date?
    /// When a scheduled start goes out (`docs/api.md`, "Scheduled starts"); nil: at once.
    public var scheduledAt: Date?
    /// When a scheduled start was given up on: the server could not send it within the grace
    /// period after ``scheduledAt`` (it is `failed`, and `reason` says so).
    public var missedAt: Date?

    static let columns = """
        id, context_key, household_id, device_id, user_id, token_id, status, reason, via_channel, created_at, updated_at, sent_at, \
        update_token_at, suspect_at, scheduled_at, missed_at
        """

    init(row: Row) throws {
        guard let status = Status(rawValue: try row.string("status")) else {
            throw StoreError(.column, "la_starts.status holds an unknown status")
        }
        id = try row.int("id")
        contextKey = try row.string("context_key")
        householdID = HouseholdID(try row.int("household_id"))
        deviceID = try row.string("device_id")
        userID = UserID(try row.int("user_id"))
        tokenID = PushTokenID(try row.int("token_id"))
        self.status = status
        reason = try row.optionalString("reason")
        viaChannel = try row.bool("via_channel")
        createdAt = try row.date("created_at")
        updatedAt = try row.date("updated_at")
        sentAt = try row.optionalDate("sent_at")
        updateTokenAt = try row.optionalDate("update_token_at")
        suspectAt = try row.optionalDate("suspect_at")
        scheduledAt = try row.optionalDate("scheduled_at")
        missedAt = try row.optionalDate("missed_at")
    }
}

/// What ``StartRepository/reserve(contextKey:deviceID:userID:tokenID:now:budget:in:)`` decided.
public enum StartReservation: Sendable, Hashable {
    /// A start is to be sent now: enqueue it in the same transaction.
    case reserved(id: Int)
    /// This device has (or is getting) a start for the context already: nothing is sent.
    case alreadyStarted(StartRecord.Status)
    /// The device's start budget is used up; nothing is sent (recorded with the reason).
    case overBudget(reason: String)
}
