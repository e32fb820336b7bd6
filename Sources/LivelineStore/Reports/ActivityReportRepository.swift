import Foundation

/// What the app reports about its activities (`docs/engine.md`, "Lifecycle"): a user dismissed a
/// context's activity (`la_dismissals`: no new start for them unless asked), the revision a
/// device rendered (`la_receipts`: the timeline shows sent against acknowledged), and the user's
/// opt-in per activity type (`la_preferences`: no push-to-start when off).
public struct ActivityReportRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Records that `userID` dismissed the context's activity (the first time counts).
    public func dismiss(contextKey: String, userID: UserID, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            "INSERT INTO la_dismissals (context_key, user_id, dismissed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            [.text(contextKey), SQLValue(userID), SQLValue(now)]
        )
    }

    /// Forgets every dismissal of the context's activity (a new card of it begins).
    public func clearDismissals(contextKey: String, in transaction: any SQLTransaction) throws {
        try transaction.execute("DELETE FROM la_dismissals WHERE context_key = $1", [.text(contextKey)])
    }

    /// The users who dismissed the context's activity.
    public func dismissedUsers(contextKey: String, in transaction: any SQLTransaction) throws -> Set<UserID> {
        Set(
            try transaction.query("SELECT user_id FROM la_dismissals WHERE context_key = $1", [.text(contextKey)]).map {
                UserID(try $0.int("user_id"))
            })
    }

    /// Records that a device (`householdID`'s `deviceID`) rendered revision `rev`, in the caller's
    /// transaction; a lower revision than the one recorded is kept out (receipts may arrive out of
    /// order). Returns the revision recorded. (The engine's receipt also answers the device's start
    /// of the context, in the same transaction.)
    @discardableResult
    public func recordReceipt(
        contextKey: String, householdID: HouseholdID, deviceID: String, userID: UserID, rev: Int, now: Date, in transaction: any SQLTransaction
    ) throws -> Int {
        do {
            try transaction.execute(
                """
                INSERT INTO la_receipts (context_key, household_id, device_id, user_id, rev, received_at) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (context_key, household_id, device_id) DO UPDATE SET
                    user_id = excluded.user_id, rev = excluded.rev, received_at = excluded.received_at
                    WHERE excluded.rev > la_receipts.rev
                """,
                [.text(contextKey), SQLValue(householdID), .text(deviceID), SQLValue(userID), SQLValue(rev), SQLValue(now)]
            )
            return try transaction.queryOne(
                "SELECT rev FROM la_receipts WHERE context_key = $1 AND household_id = $2 AND device_id = $3",
                [.text(contextKey), SQLValue(householdID), .text(deviceID)]
            )?.int("rev") ?? rev
        }
    }

    /// Sets the user's "show Live Activities" setting for `attributesType`.
    public func setOptIn(userID: UserID, attributesType: String, enabled: Bool, now: Date) throws {
        try database.write { transaction in
            try transaction.execute(
                """
                INSERT INTO la_preferences (user_id, attributes_type, enabled, updated_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (user_id, attributes_type) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at
                """,
                [SQLValue(userID), .text(attributesType), SQLValue(enabled), SQLValue(now)]
            )
        }
    }

    /// The user's settings by activity type (types without a row are on).
    public func optIns(userID: UserID) throws -> [String: Bool] {
        try database.read { transaction in
            var settings: [String: Bool] = [:]
            for row in try transaction.query("SELECT attributes_type, enabled FROM la_preferences WHERE user_id = $1", [SQLValue(userID)]) {
                settings[try row.string("attributes_type")] = try row.bool("enabled")
            }
            return settings
        }
    }

    /// The users who turned Live Activities of `attributesType` off.
    public func optedOutUsers(attributesType: String, in transaction: any SQLTransaction) throws -> Set<UserID> {
        Set(
            try transaction.query(
                "SELECT user_id FROM la_preferences WHERE attributes_type = $1 AND enabled = 0", [.text(attributesType)]
            ).map { UserID(try $0.int("user_id")) })
    }

    /// The newest receipt of every device for the context, by device.
    public func receipts(contextKey: String, in transaction: any SQLTransaction) throws -> [Receipt] {
        try transaction.query(
            "SELECT device_id, user_id, rev, received_at FROM la_receipts WHERE context_key = $1 ORDER BY device_id", [.text(contextKey)]
        ).map { row in
            Receipt(
                deviceID: try row.string("device_id"), userID: UserID(try row.int("user_id")), rev: try row.int("rev"),
                receivedAt: try row.date("received_at"))
        }
    }

    public func receipts(contextKey: String) throws -> [Receipt] {
        try database.read { transaction in try receipts(contextKey: contextKey, in: transaction) }
    }
}

/// The newest revision one device reported rendering.
public struct Receipt: Sendable, Hashable {
    public var deviceID: String
    public var userID: UserID
    public var rev: Int
    public var receivedAt: Date
}
