import Foundation

/// Households, users and device sessions.
///
/// Users are created by `liveline users add`, which prints a bearer token; the store only ever
/// sees its hex SHA-256 (`docs/engine.md`, "People, devices, auth": tokens are stored hashed). Works on
/// any ``Database``.
public struct AccountRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Creates a user and a device session for `tokenHash`, in one write transaction.
    ///
    /// The household named `household` is created when new (its locale is this first user's
    /// `locale`), else the user joins it. Throws `.constraint` when `tokenHash` is already in use.
    public func createUser(
        household: String, name: String, avatarTint: String, emoji: String, locale: String, tokenHash: String, now: Date
    ) throws -> UserRecord {
        try database.write { transaction in
            // ON CONFLICT DO NOTHING + SELECT also holds when another PostgreSQL transaction creates
            // the same household at the same moment.
            try transaction.execute(
                "INSERT INTO households (name, locale, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                [.text(household), .text(locale), SQLValue(now)]
            )
            guard let householdRow = try transaction.queryOne("SELECT id FROM households WHERE name = $1", [.text(household)]) else {
                throw StoreError(.notFound, "the household \(household) vanished while its user was being created")
            }
            let householdID = HouseholdID(try householdRow.int("id"))
            guard
                let userRow = try transaction.queryOne(
                    """
                    INSERT INTO users (household_id, name, avatar_tint, emoji, locale, created_at)
                    VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
                    """,
                    [SQLValue(householdID), .text(name), .text(avatarTint), .text(emoji), .text(locale), SQLValue(now)]
                )
            else {
                throw StoreError(.database, "inserting a user returned no id")
            }
            let userID = UserID(try userRow.int("id"))
            try Self.insertSession(transaction, userID: userID, tokenHash: tokenHash, now: now)
            return UserRecord(
                id: userID, householdID: householdID, householdName: household, name: name, avatarTint: avatarTint,
                emoji: emoji, locale: locale, createdAt: SQLValue.date(milliseconds: SQLValue.milliseconds(now))
            )
        }
    }

    /// Adds another device session for an existing user; throws `.notFound` for an unknown user.
    @discardableResult
    public func addSession(userID: UserID, tokenHash: String, now: Date) throws -> Int {
        try database.write { transaction in
            guard try transaction.queryOne("SELECT id FROM users WHERE id = $1", [SQLValue(userID)]) != nil else {
                throw StoreError(.notFound, "there is no user \(userID)")
            }
            return try Self.insertSession(transaction, userID: userID, tokenHash: tokenHash, now: now)
        }
    }

    /// Every user, ordered by household, then by id.
    public func users() throws -> [UserRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(UserRecord.columns) FROM users u JOIN households h ON h.id = u.household_id
                ORDER BY u.household_id, u.id
                """
            ).map(UserRecord.init(row:))
        }
    }

    /// The user with `id`, or `nil`.
    public func user(id: UserID) throws -> UserRecord? {
        try database.read { transaction in
            try transaction.queryOne(
                "SELECT \(UserRecord.columns) FROM users u JOIN households h ON h.id = u.household_id WHERE u.id = $1",
                [SQLValue(id)]
            ).map(UserRecord.init(row:))
        }
    }

    /// The members of a household ordered by id; empty for an unknown household.
    public func members(householdID: HouseholdID) throws -> [UserRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(UserRecord.columns) FROM users u JOIN households h ON h.id = u.household_id
                WHERE u.household_id = $1 ORDER BY u.id
                """,
                [SQLValue(householdID)]
            ).map(UserRecord.init(row:))
        }
    }

    /// The household with `id`, or `nil`.
    public func household(id: HouseholdID) throws -> HouseholdRecord? {
        try database.read { transaction in
            try transaction.queryOne("SELECT id, name, locale, created_at FROM households WHERE id = $1", [SQLValue(id)])
                .map(HouseholdRecord.init(row:))
        }
    }

    /// The session whose bearer token hashes to `tokenHash`, with its user, or `nil`.
    ///
    /// Runs on every authenticated request: one prepared point query on the unique index.
    public func session(tokenHash: String) throws -> SessionRecord? {
        try database.read { transaction in
            guard
                let row = try transaction.queryOne(
                    """
                    SELECT s.id AS session_id, s.created_at AS session_created_at, s.last_seen_at, \(UserRecord.columns)
                    FROM sessions s JOIN users u ON u.id = s.user_id JOIN households h ON h.id = u.household_id
                    WHERE s.token_hash = $1
                    """,
                    [.text(tokenHash)]
                )
            else { return nil }
            return SessionRecord(
                id: try row.int("session_id"), user: try UserRecord(row: row),
                createdAt: try row.date("session_created_at"), lastSeenAt: try row.date("last_seen_at")
            )
        }
    }

    /// Moves a session's `last_seen_at` to `now` (callers decide how often; it is a write).
    /// Returns `false` when there is no such session.
    @discardableResult
    public func touchSession(id: Int, now: Date) throws -> Bool {
        try database.write { transaction in
            try transaction.execute("UPDATE sessions SET last_seen_at = $2 WHERE id = $1", [SQLValue(id), SQLValue(now)]) == 1
        }
    }

    /// Ends the session with id `id` (its bearer token is refused from now on); false when there
    /// was none.
    @discardableResult
    public func deleteSession(id: Int) throws -> Bool {
        try database.write { transaction in try transaction.execute("DELETE FROM sessions WHERE id = $1", [SQLValue(id)]) == 1 }
    }

    /// Ends the session whose bearer token hashes to `tokenHash`; false when there was none.
    @discardableResult
    public func deleteSession(tokenHash: String) throws -> Bool {
        try database.write { transaction in
            try transaction.execute("DELETE FROM sessions WHERE token_hash = $1", [.text(tokenHash)]) == 1
        }
    }

    /// Ends every session of `userID`; returns how many there were.
    @discardableResult
    public func deleteSessions(userID: UserID) throws -> Int {
        try database.write { transaction in try transaction.execute("DELETE FROM sessions WHERE user_id = $1", [SQLValue(userID)]) }
    }

    @discardableResult
    private static func insertSession(_ transaction: any SQLTransaction, userID: UserID, tokenHash: String, now: Date) throws -> Int {
        guard
            let row = try transaction.queryOne(
                "INSERT INTO sessions (user_id, token_hash, created_at, last_seen_at) VALUES ($1, $2, $3, $3) RETURNING id",
                [SQLValue(userID), .text(tokenHash), SQLValue(now)]
            )
        else {
            throw StoreError(.database, "inserting a session returned no id")
        }
        return try row.int("id")
    }
}
