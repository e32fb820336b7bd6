import Foundation
import LivelineModel

/// Read-only views across the tables for people operating a server (the dashboard): activities by
/// type and state, the newest contexts, pushes by outcome over time, dead letters, and the token
/// registry by household and device. Nothing here writes; device tokens leave as a prefix only.
public struct OperationsReads: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// How many contexts of a type are in a state.
    public struct ActivityCount: Sendable, Hashable {
        public var activityType: String
        public var state: ContextState
        public var count: Int
    }

    /// Contexts by activity type and state.
    public func activityCounts() throws -> [ActivityCount] {
        try database.read { transaction in
            try transaction.query(
                "SELECT activity_type, state, COUNT(*) AS n FROM contexts GROUP BY activity_type, state ORDER BY activity_type, state"
            )
            .map { row in
                ActivityCount(
                    activityType: try row.string("activity_type"), state: ContextState(rawValue: try row.string("state")) ?? .active,
                    count: try row.int("n"))
            }
        }
    }

    /// One context as a list shows it.
    public struct ContextLine: Sendable, Hashable {
        public var key: String
        public var activityType: String
        public var state: ContextState
        public var rev: Int
        public var householdID: HouseholdID?
        public var updatedAt: Date
    }

    /// The contexts changed most recently, newest first; active ones before ended ones.
    public func recentContexts(limit: Int) throws -> [ContextLine] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT key, activity_type, state, rev, household_id, updated_at FROM contexts
                ORDER BY CASE WHEN state = 'active' THEN 0 ELSE 1 END, updated_at DESC, key LIMIT $1
                """, [.integer(Int64(limit))]
            ).map { row in
                ContextLine(
                    key: try row.string("key"), activityType: try row.string("activity_type"),
                    state: ContextState(rawValue: try row.string("state")) ?? .active, rev: try row.int("rev"),
                    householdID: try row.optionalInt64("household_id").map { HouseholdID(Int($0)) }, updatedAt: try row.date("updated_at"))
            }
        }
    }

    /// Delivery attempts of one time slot, of one kind, with one HTTP status (0: no answer).
    public struct OutcomeCount: Sendable, Hashable {
        /// The slot: 0 for the one starting at `since`, then one per `slotSeconds`.
        public var slot: Int
        public var status: Int
        /// Broadcast channels deleted through APNs's channel management API, not pushes
        /// (``DeliveryAttempt/isChannelDeletion``).
        public var channelDeletion: Bool
        public var count: Int

        /// What the status says: accepted (any 2xx), refused, or no answer.
        public var verdict: DeliveryVerdict { DeliveryVerdict(status: status) }
    }

    /// Delivery attempts since `since`, by slot of `slotSeconds`, by kind (a push, or a channel's
    /// deletion) and by status.
    public func deliveryOutcomes(since: Date, slotSeconds: Int) throws -> [OutcomeCount] {
        precondition(slotSeconds > 0)
        let deletion = "CASE WHEN \(DeliveryAttempt.channelDeletionSQL) THEN 1 ELSE 0 END"
        return try database.read { transaction in
            try transaction.query(
                """
                SELECT (attempted_at - $1) / $2 AS slot, \(deletion) AS deletion, status, COUNT(*) AS n FROM deliveries
                WHERE attempted_at >= $1 GROUP BY (attempted_at - $1) / $2, \(deletion), status
                """, [SQLValue(since), .integer(Int64(slotSeconds) * 1000)]
            ).map { row in
                OutcomeCount(
                    slot: try row.int("slot"), status: try row.int("status"), channelDeletion: try row.int("deletion") == 1, count: try row.int("n"))
            }
        }
    }

    /// An outbox row given up on.
    public struct DeadLetter: Sendable, Hashable {
        public var id: Int
        public var contextKey: String?
        public var kind: String
        public var reason: String?
        public var at: Date
    }

    /// The newest dead letters, newest first.
    public func recentDeadLetters(limit: Int) throws -> [DeadLetter] {
        try database.read { transaction in
            try transaction.query(
                "SELECT id, context_key, kind, last_error, updated_at FROM outbox WHERE status = 'dead' ORDER BY updated_at DESC, id DESC LIMIT $1",
                [.integer(Int64(limit))]
            ).map { row in
                DeadLetter(
                    id: try row.int("id"), contextKey: try row.optionalString("context_key"), kind: try row.string("kind"),
                    reason: try row.optionalString("last_error"), at: try row.date("updated_at"))
            }
        }
    }

    /// One registered token, as an operator sees it: whose, which device, its kind and state —
    /// the token itself only as its first characters.
    public struct TokenLine: Sendable, Hashable {
        public var householdID: HouseholdID
        public var householdName: String
        public var userName: String
        public var deviceID: String
        public var kind: String
        public var environment: String
        public var attributesType: String?
        public var contextKey: String?
        public var status: String
        /// The first 8 characters of the token (an endpoint's origin for a browser).
        public var tokenPrefix: String
        public var firstRegisteredAt: Date
        public var lastRegisteredAt: Date
        public var endedAt: Date?
        public var endReason: String?
        public var suspectAt: Date?
        public var suspectReason: String?
    }

    /// Tokens by household, device and kind: the active ones, and the others that ended within
    /// `endedWithin` seconds (so the reason a token stopped can be seen); at most `limit`.
    public func tokens(endedWithin: TimeInterval, now: Date, limit: Int) throws -> [TokenLine] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT t.household_id, h.name AS household_name, u.name AS user_name, t.device_id, t.kind, t.environment,
                    t.attributes_type, t.context_key, t.status, t.token, t.first_registered_at, t.last_registered_at,
                    t.ended_at, t.end_reason, t.suspect_at, t.suspect_reason
                FROM push_tokens t JOIN households h ON h.id = t.household_id JOIN users u ON u.id = t.user_id
                WHERE t.status = 'active' OR t.ended_at >= $1
                ORDER BY h.name, t.household_id, t.device_id, t.kind, CASE WHEN t.status = 'active' THEN 0 ELSE 1 END, t.last_registered_at DESC
                LIMIT $2
                """, [SQLValue(now.addingTimeInterval(-endedWithin)), .integer(Int64(limit))]
            ).map { row in
                let token = try row.string("token")
                let kind = try row.string("kind")
                return TokenLine(
                    householdID: HouseholdID(try row.int("household_id")), householdName: try row.string("household_name"),
                    userName: try row.string("user_name"), deviceID: try row.string("device_id"), kind: kind,
                    environment: try row.string("environment"), attributesType: try row.optionalString("attributes_type"),
                    contextKey: try row.optionalString("context_key"), status: try row.string("status"),
                    tokenPrefix: PushTokenRedaction.redacted(token, kind: PushTokenKind(rawValue: kind) ?? .alert),
                    firstRegisteredAt: try row.date("first_registered_at"),
                    lastRegisteredAt: try row.date("last_registered_at"), endedAt: try row.optionalDate("ended_at"),
                    endReason: try row.optionalString("end_reason"), suspectAt: try row.optionalDate("suspect_at"),
                    suspectReason: try row.optionalString("suspect_reason"))
            }
        }
    }

    /// A device that shows (or was asked to show) a context: its update token, the newest
    /// revision APNs accepted for it and the newest it reported rendering, its start.
    public struct ContextDevice: Sendable, Hashable {
        public var deviceID: String
        public var userName: String?
        /// The update token's state (`active`, `invalid`, …) and prefix; nil without one.
        public var tokenStatus: String?
        public var tokenPrefix: String?
        public var sentRev: Int?
        public var acknowledgedRev: Int?
        /// The push-to-start's status (`queued`, `sent`, `failed`, `skipped`), if one was made.
        public var startStatus: String?
    }

    /// The devices of context `key`: from its update tokens, its starts and its receipts.
    public func devices(contextKey key: String) throws -> [ContextDevice] {
        try database.read { transaction in
            var devices: [String: ContextDevice] = [:]
            for row in try transaction.query(
                """
                SELECT t.device_id, t.status, t.token, u.name AS user_name,
                    (SELECT MAX(d.rev) FROM deliveries d WHERE d.context_key = $1 AND d.target_kind = 'token'
                        AND d.target = CAST(t.id AS TEXT) AND d.status = 200) AS sent_rev
                FROM push_tokens t JOIN users u ON u.id = t.user_id
                WHERE t.context_key = $1 AND t.kind = 'la-update'
                ORDER BY CASE WHEN t.status = 'active' THEN 0 ELSE 1 END, t.last_registered_at DESC
                """, [.text(key)]
            ) {
                let deviceID = try row.string("device_id")
                // The newest active token speaks for the device; older ones add their sent revision.
                let userName = try row.string("user_name")
                var device = devices[deviceID] ?? ContextDevice(deviceID: deviceID, userName: userName)
                if device.tokenStatus == nil {
                    device.tokenStatus = try row.string("status")
                    device.tokenPrefix = PushTokenRedaction.redacted(try row.string("token"), kind: .update)
                }
                if let sent = try row.optionalInt("sent_rev") { device.sentRev = max(device.sentRev ?? sent, sent) }
                devices[deviceID] = device
            }
            for row in try transaction.query(
                "SELECT s.device_id, s.status, u.name AS user_name FROM la_starts s JOIN users u ON u.id = s.user_id WHERE s.context_key = $1",
                [.text(key)]
            ) {
                let deviceID = try row.string("device_id")
                let userName = try row.string("user_name")
                var device = devices[deviceID] ?? ContextDevice(deviceID: deviceID, userName: userName)
                device.startStatus = try row.string("status")
                devices[deviceID] = device
            }
            for row in try transaction.query(
                "SELECT r.device_id, r.rev, u.name AS user_name FROM la_receipts r JOIN users u ON u.id = r.user_id WHERE r.context_key = $1",
                [.text(key)]
            ) {
                let deviceID = try row.string("device_id")
                let userName = try row.string("user_name")
                var device = devices[deviceID] ?? ContextDevice(deviceID: deviceID, userName: userName)
                device.acknowledgedRev = try row.int("rev")
                devices[deviceID] = device
            }
            return devices.values.sorted { $0.deviceID < $1.deviceID }
        }
    }

    /// The newest revision of context `key` APNs accepted on its broadcast channels, if any.
    public func channelSentRev(contextKey key: String) throws -> Int? {
        try database.read { transaction in
            try transaction.queryOne(
                "SELECT MAX(rev) AS rev FROM deliveries WHERE context_key = $1 AND target_kind = 'channel' AND status = 200", [.text(key)]
            )?.optionalInt("rev")
        }
    }

    /// Priority-10 pushes of context `key` APNs accepted since `since`, per target: the budget's
    /// ledger (``DeliveryRepository/priorityLedger(contextKey:since:channelsOnly:in:)``).
    public func priorityLedger(contextKey key: String, since: Date) throws -> [OutboxTarget: Int] {
        try database.read { transaction in try DeliveryRepository(database: database).priorityLedger(contextKey: key, since: since, in: transaction) }
    }
}
