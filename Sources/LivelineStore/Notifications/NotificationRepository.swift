import Foundation

/// The inbox (`docs/engine.md`, "Notify"): one record per user and dedupe key; the app polls it,
/// marks records read, and a resolved record is greyed out.
public struct NotificationRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Creates the user's record for `dedupeKey` in the caller's transaction; `nil` when the user
    /// has one with that key already (then nothing changes and nothing is to be sent).
    public func create(
        userID: UserID, title: String, body: String?, icon: String?, link: String?, dedupeKey: String, now: Date,
        in transaction: any SQLTransaction
    ) throws -> NotificationRecord? {
        try transaction.queryOne(
            """
            INSERT INTO notifications (user_id, title, body, icon, link, dedupe_key, resolved, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, 0, $7)
            ON CONFLICT (user_id, dedupe_key) DO NOTHING
            RETURNING \(NotificationRecord.columns)
            """,
            [SQLValue(userID), .text(title), SQLValue(body), SQLValue(icon), SQLValue(link), .text(dedupeKey), SQLValue(now)]
        ).map(NotificationRecord.init(row:))
    }

    /// Sets `resolved = 1` on the user's record with `dedupeKey`; `false` when there is none.
    @discardableResult
    public func resolve(userID: UserID, dedupeKey: String) throws -> Bool {
        try database.write { transaction in try resolve(userID: userID, dedupeKey: dedupeKey, in: transaction) }
    }

    /// ``resolve(userID:dedupeKey:)`` in `transaction`.
    @discardableResult
    public func resolve(userID: UserID, dedupeKey: String, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            "UPDATE notifications SET resolved = 1 WHERE user_id = $1 AND dedupe_key = $2", [SQLValue(userID), .text(dedupeKey)]
        ) > 0
    }

    /// Marks the user's record read (the first time counts); `false` when the user has no record `id`.
    @discardableResult
    public func markRead(id: Int, userID: UserID, now: Date) throws -> Bool {
        try database.write { transaction in
            try transaction.execute(
                "UPDATE notifications SET read_at = COALESCE(read_at, $3) WHERE id = $1 AND user_id = $2",
                [SQLValue(id), SQLValue(userID), SQLValue(now)]
            ) == 1
        }
    }

    /// The user's records, newest first.
    public func notifications(userID: UserID, limit: Int = 100) throws -> [NotificationRecord] {
        try database.read { transaction in
            try transaction.query(
                "SELECT \(NotificationRecord.columns) FROM notifications WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
                [SQLValue(userID), SQLValue(limit)]
            ).map(NotificationRecord.init(row:))
        }
    }

    /// The user's record with `dedupeKey`, or `nil`.
    public func notification(userID: UserID, dedupeKey: String) throws -> NotificationRecord? {
        try database.read { transaction in
            try transaction.queryOne(
                "SELECT \(NotificationRecord.columns) FROM notifications WHERE user_id = $1 AND dedupe_key = $2",
                [SQLValue(userID), .text(dedupeKey)]
            ).map(NotificationRecord.init(row:))
        }
    }

    /// The timeline of the user's notification with `dedupeKey`, newest first: every push attempt
    /// of it (alert pushes and web pushes, with the answer) and the rows that went to the dead
    /// letters, read in one transaction (`GET /v1/notify/timeline`). Its outbox rows are those
    /// keyed `notify:{userId}:{dedupeKey}:…`.
    public func timeline(userID: UserID, dedupeKey: String, limit: Int = 200) throws -> [TimelineEntry] {
        let prefix = "notify:\(userID.rawValue):\(dedupeKey):"
        return try database.read { transaction in
            let rows = try transaction.query(
                "SELECT \(OutboxRow.columns) FROM outbox WHERE kind = 'message' AND substr(idempotency_key, 1, $2) = $1 ORDER BY id",
                [.text(prefix), SQLValue(prefix.unicodeScalars.count)]  // code points, as both count
            ).map(OutboxRow.init(row:))
            guard !rows.isEmpty else { return [] }
            let attempts = try transaction.query(
                """
                SELECT \(DeliveryAttempt.columns) FROM deliveries WHERE \(database.dialect.isOneOf("outbox_id", "$1"))
                ORDER BY attempted_at DESC, id DESC LIMIT $2
                """,
                [database.dialect.idList(rows.map(\.id)), SQLValue(limit)]
            ).map { TimelineEntry.delivery(try DeliveryAttempt(row: $0)) }
            let dead = rows.filter { $0.status == .dead }.map(TimelineEntry.deadLetter)
            let merged = (attempts + dead).sorted { ($0.date, $0.rank, $0.sequence) > ($1.date, $1.rank, $1.sequence) }
            return Array(merged.prefix(limit))
        }
    }
}

/// One inbox record.
public struct NotificationRecord: Sendable, Hashable {
    public var id: Int
    public var userID: UserID
    public var title: String
    public var body: String?
    public var icon: String?
    /// The deep link the app opens.
    public var link: String?
    public var dedupeKey: String
    public var resolved: Bool
    public var readAt: Date?
    public var createdAt: Date

    static let columns = "id, user_id, title, body, icon, link, dedupe_key, resolved, read_at, created_at"

    init(row: Row) throws {
        id = try row.int("id")
        userID = UserID(try row.int("user_id"))
        title = try row.string("title")
        body = try row.optionalString("body")
        icon = try row.optionalString("icon")
        link = try row.optionalString("link")
        dedupeKey = try row.string("dedupe_key")
        resolved = try row.bool("resolved")
        readAt = try row.optionalDate("read_at")
        createdAt = try row.date("created_at")
    }

}
