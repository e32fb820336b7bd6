import Foundation
import LivelineModel

/// The push token registry: one active token per slot, ended tokens kept as history.
///
/// Rules from `docs/engine.md`, "Push tokens": registration is idempotent and cheap (apps call it on
/// every launch); a newer token for the same key replaces the old one, which stays as history;
/// sandbox and production are separate namespaces; a token lives in exactly one active slot; an
/// unregistered token is removed only from the caller's household. A missing token is the
/// caller's to reject: ``TokenRegistration/token`` is not optional. Works on any ``Database``.
public struct PushTokenRepository: Sendable {
    public let database: any Database
    /// Goes up after every write to the registry (see ``ChangeCounter``).
    public let changes: ChangeCounter

    /// How often ``register(_:now:)`` retries after a concurrent transaction took the same slot
    /// (SQLite serialises writers, and on PostgreSQL registrations of one slot wait for each
    /// other; kept as a safeguard).
    static let conflictRetries = 3

    public init(database: any Database, changes: ChangeCounter = ChangeCounter()) {
        self.database = database
        self.changes = changes
    }

    /// A write transaction that bumps ``changes`` once it is over (committed or not).
    private func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        defer { changes.bump() }
        return try database.write(body)
    }

    /// Stores a registration in one write transaction and says what changed.
    ///
    /// - Same slot, same token: only `last_registered_at` and `frequent_pushes_enabled` move → `.unchanged`.
    /// - Same slot, another token: the old row ends as `replaced`, a new active row → `.replaced`.
    /// - Empty slot: a new active row → `.created`.
    ///
    /// Any other active row of the same household with the same environment, kind and token (another
    /// slot: the device id changed) ends as `replaced` with reason `moved`. Rows of other households
    /// are never touched (`docs/engine.md`: a user changes only their own household's data), so knowing
    /// a token gives no way to end another household's registration. The partial unique index makes two
    /// active rows in one slot impossible; an insert that loses a race is retried as an update.
    ///
    /// (The engine's registration also records, in the same transaction, that an `la-update`
    /// token answers the device's push-to-start.)
    @discardableResult
    public func register(_ registration: TokenRegistration, now: Date) throws -> RegistrationOutcome {
        try write { transaction in try register(registration, now: now, in: transaction) }
    }

    /// ``register(_:now:)`` inside the caller's write transaction; call ``noteCommitted()`` once
    /// it committed (cached token lists are then read again).
    public func register(_ registration: TokenRegistration, now: Date, in transaction: any SQLTransaction) throws -> RegistrationOutcome {
        let slot = try registration.slot
        // Registrations of one slot queue up on PostgreSQL (an advisory lock per schema and slot,
        // held to the commit): racing through read-then-insert, eight at once could each lose to
        // another more often than the retries below allow. SQLite's writes are one at a time.
        if database.dialect == .postgres {
            try transaction.execute(
                """
                SELECT pg_advisory_xact_lock(72618, hashtext(current_schema() || ':' || CAST($1 AS TEXT) || ':' || CAST($2 AS TEXT)
                    || ':' || CAST($3 AS TEXT) || ':' || CAST($4 AS TEXT)))
                """,
                [SQLValue(registration.householdID), .text(registration.environment.rawValue), .text(registration.kind.rawValue), .text(slot)])
        }
        do {
            try transaction.execute(
                """
                UPDATE push_tokens SET status = 'replaced', ended_at = $1, end_reason = 'moved'
                -- The subquery keeps the planner on the token index: given the household too, SQLite
                -- picked the slot index and read every active token of the household (O(n) per call).
                WHERE id IN (SELECT id FROM push_tokens WHERE environment = $2 AND kind = $3 AND token = $4 AND status = 'active')
                AND household_id = $5 AND slot <> $6
                """,
                [
                    SQLValue(now), .text(registration.environment.rawValue), .text(registration.kind.rawValue),
                    .text(registration.token), SQLValue(registration.householdID), .text(slot),
                ]
            )
            var replacedOld = false
            for _ in 0..<Self.conflictRetries {
                if let current = try transaction.queryOne(
                    """
                    SELECT id, token FROM push_tokens
                    WHERE household_id = $1 AND environment = $2 AND kind = $3 AND slot = $4 AND status = 'active'
                    """,
                    [
                        SQLValue(registration.householdID), .text(registration.environment.rawValue),
                        .text(registration.kind.rawValue), .text(slot),
                    ]
                ) {
                    let id = try current.int("id")
                    if try current.string("token") == registration.token {
                        try transaction.execute(
                            // The app saying the environment now (a newer SDK) makes it the app's; an
                            // updated app keeps its token and says its new build's contract.
                            """
                            UPDATE push_tokens SET last_registered_at = $2, frequent_pushes_enabled = $3,
                                environment_source = CASE WHEN CAST($4 AS TEXT) = 'app' THEN 'app' ELSE environment_source END,
                                contract_fingerprint = COALESCE($5, contract_fingerprint), widget_kinds = COALESCE($6, widget_kinds),
                                activity_id = COALESCE($7, activity_id)
                            WHERE id = $1
                            """,
                            [
                                SQLValue(id), SQLValue(now), SQLValue(registration.frequentPushesEnabled),
                                .text(registration.environmentSource.rawValue), SQLValue(registration.contractFingerprint),
                                SQLValue(PushTokenRecord.widgetKindsJSON(registration.widgetKinds)), SQLValue(registration.activityID),
                            ]
                        )
                        return replacedOld ? .replaced : .unchanged
                    }
                    try transaction.execute(
                        """
                        UPDATE push_tokens SET status = 'replaced', ended_at = $2, end_reason = 'replaced'
                        WHERE id = $1 AND status = 'active'
                        """,
                        [SQLValue(id), SQLValue(now)]
                    )
                    replacedOld = true
                }
                if try insert(registration, slot: slot, now: now, in: transaction) {
                    return replacedOld ? .replaced : .created
                }
            }
            throw StoreError(.busy, "the \(registration.kind.rawValue) slot kept being taken by concurrent registrations")
        }
    }

    /// Where a token registered without an environment was learned to belong: the other
    /// environment, when the household has an active `learned` row there of the same device
    /// (its build's environment: a rotated token, or another kind of token of that app) or of
    /// the same token (the app registers it again on every launch, still without one, perhaps
    /// under another device id). Else `nil`: the default is a guess again.
    public func learnedEnvironment(of registration: TokenRegistration, in transaction: any SQLTransaction) throws -> PushEnvironment? {
        guard registration.environmentSource == .default else { return nil }
        let other: PushEnvironment = registration.environment == .production ? .sandbox : .production
        let row = try transaction.queryOne(
            """
            SELECT id FROM push_tokens
            WHERE household_id = $1 AND environment = $2 AND status = 'active' AND environment_source = 'learned'
                AND (device_id = $3 OR token = $4)
            LIMIT 1
            """,
            [SQLValue(registration.householdID), .text(other.rawValue), .text(registration.deviceID), .text(registration.token)]
        )
        return row == nil ? nil : other
    }

    /// A write of this table committed outside ``register(_:now:)`` (see ``register(_:now:in:)``).
    public func noteCommitted() { changes.bump() }

    /// Marks the household's active rows holding `token` as `deleted` and returns how many there
    /// were; rows of other households are never touched.
    @discardableResult
    public func unregister(token: String, householdID: HouseholdID, now: Date) throws -> Int {
        try write { transaction in
            try transaction.execute(
                """
                UPDATE push_tokens SET status = 'deleted', ended_at = $3, end_reason = 'unregistered'
                WHERE household_id = $1 AND token = $2 AND status = 'active'
                """,
                [SQLValue(householdID), .text(token), SQLValue(now)]
            )
        }
    }

    /// Marks an active token `invalid` with APNs' `reason`; returns `false` when it was not active
    /// or, with `registeredBefore`, when it was registered again at or after that time.
    ///
    /// For `410 Unregistered` pass APNs' `timestamp` as `registeredBefore`: the token is invalid
    /// only if APNs saw it die after its last registration (`docs/engine.md`, "Push tokens"; Related
    /// APNs documentation: "Handling notification responses from APNs").
    @discardableResult
    public func markInvalid(id: PushTokenID, reason: String, now: Date, registeredBefore: Date? = nil) throws -> Bool {
        try write { transaction in try markInvalid(id: id, reason: reason, now: now, registeredBefore: registeredBefore, in: transaction) }
    }

    /// ``markInvalid(id:reason:now:registeredBefore:)`` in the caller's transaction (with the
    /// delivery record of the answer that said so). The caller bumps ``changes`` once the
    /// transaction committed: a bump before the commit would let a reader cache the old list
    /// under the new count.
    @discardableResult
    public func markInvalid(
        id: PushTokenID, reason: String, now: Date, registeredBefore: Date? = nil, in transaction: any SQLTransaction
    ) throws -> Bool {
        // Two texts rather than `$4 IS NULL OR …`: PostgreSQL cannot type a parameter seen only in IS NULL.
        var sql = "UPDATE push_tokens SET status = 'invalid', ended_at = $2, end_reason = $3 WHERE id = $1 AND status = 'active'"
        var parameters = [SQLValue(id), SQLValue(now), .text(reason)]
        if let registeredBefore {
            sql += " AND last_registered_at < $4"
            parameters.append(SQLValue(registeredBefore))
        }
        return try transaction.execute(sql, parameters) == 1
    }

    /// Moves a token whose environment was a default guess to `environment`, where APNs knows it
    /// (recorded as `learned`); false when it is not such a token any more, or when its slot is
    /// taken there by an active token (then it stays as it is). In the caller's transaction; the
    /// caller bumps ``changes`` once it committed.
    public func moveToEnvironment(id: PushTokenID, _ environment: PushEnvironment, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            """
            UPDATE push_tokens SET environment = $2, environment_source = 'learned'
            WHERE id = $1 AND status = 'active' AND environment_source = 'default' AND NOT EXISTS (
                SELECT 1 FROM push_tokens AS other
                WHERE other.household_id = push_tokens.household_id AND other.environment = $2 AND other.kind = push_tokens.kind
                    AND other.slot = push_tokens.slot AND other.status = 'active')
            """,
            [SQLValue(id), .text(environment.rawValue)]
        ) == 1
    }

    /// The environment an active token was moved to (``moveToEnvironment(id:_:in:)``), or nil
    /// when it is not active or its environment was not learned. In the caller's transaction.
    public func learnedEnvironment(of id: PushTokenID, in transaction: any SQLTransaction) throws -> PushEnvironment? {
        try transaction.queryOne(
            "SELECT environment FROM push_tokens WHERE id = $1 AND status = 'active' AND environment_source = 'learned'", [SQLValue(id)]
        )?.optionalString("environment").flatMap(PushEnvironment.init(rawValue:))
    }

    /// Whether some user registered `token` (an APNs device, push-to-start or update token, hex in
    /// any case) and it is active: what the embedded APNs sandbox asks before it accepts a push to
    /// a token it does not know. With `environment`, only a token the app said (or the server
    /// learned) is of that environment; a token whose environment was the server's default guess
    /// is not (it is tried in the other environment, as with Apple's).
    public func isActive(apnsToken token: String, environment: PushEnvironment? = nil) throws -> Bool {
        let inEnvironment =
            environment == nil ? "environment IN ('sandbox', 'production')" : "environment = $3 AND environment_source IN ('app', 'learned')"
        return try database.read { transaction in
            try transaction.queryOne(
                """
                SELECT 1 AS found FROM push_tokens
                WHERE \(inEnvironment) AND kind IN ('alert', 'la-pushToStart', 'la-update', 'widgets')
                    AND token IN ($1, $2) AND status = 'active' LIMIT 1
                """, [.text(token.lowercased()), .text(token.uppercased())] + (environment.map { [.text($0.rawValue)] } ?? [])
            ) != nil
        }
    }

    /// The user's active tokens, by device, kind and id.
    public func activeTokens(userID: UserID) throws -> [PushTokenRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(PushTokenRecord.columns) FROM push_tokens
                WHERE user_id = $1 AND status = 'active' ORDER BY device_id, kind, id
                """,
                [SQLValue(userID)]
            ).map(PushTokenRecord.init(row:))
        }
    }

    /// The active `la-update` tokens registered for a context in one environment: the targets of
    /// "update by context" (`docs/engine.md`, fan-out). With `householdID`, only that household's
    /// tokens — a context of a household never reaches another household's device, whatever key
    /// someone registered; contexts without an owner (the `/v1` API) reach every token
    /// registered with their key. With `onlyID`, just that token (the one target of a retry or a
    /// catch-up), if it is still one of them. With `ledgerSince`, each with its count of the
    /// budget's ledger since then (``UpdateTarget/priorityPushesAccepted``). Only what a push to
    /// each needs (a fan-out reads every one of them; 100,000 is a size the engine is measured at).
    /// In id order; with `after` and `limit`, one page of them: at most `limit` tokens with ids
    /// past `after` (a range of `push_tokens_context`, migration 12).
    public func updateTargets(
        contextKey: String, environment: PushEnvironment, householdID: HouseholdID?, onlyID: PushTokenID? = nil, ledgerSince: Date? = nil,
        after: PushTokenID? = nil, limit: Int? = nil, in transaction: any SQLTransaction
    ) throws -> [UpdateTarget] {
        var parameters: [SQLValue] = [.text(contextKey), .text(environment.rawValue)]
        // With `ledgerSince`, each token's count of the budget's ledger (what
        // ``DeliveryRepository/priorityLedger(contextKey:since:channelsOnly:in:)`` counts) in the
        // same statement: one range of `deliveries_budget_tokens` per token (migration 19; its two
        // equalities and the `WHERE` of the index), instead of a second result with a row per
        // token, which a large fan-out was slow to read and index
        // (docs/decisions/the-budget-ledger-read-with-each-token.md). A page's tokens are
        // neighbours in that index (docs/decisions/the-budget-ledger-by-token-id.md).
        var ledger = ""
        if let ledgerSince {
            parameters.append(SQLValue(ledgerSince))
            ledger = ", " + Self.ledgerCount(database.dialect, since: parameters.count) + " AS priority_accepted"
        }
        var sql = """
            SELECT id, token, frequent_pushes_enabled, environment_source\(ledger) FROM push_tokens
            WHERE kind = 'la-update' AND context_key = $1 AND environment = $2 AND status = 'active'
            """
        if let householdID {
            parameters.append(SQLValue(householdID))
            sql += " AND household_id = $\(parameters.count)"
        }
        if let onlyID {
            parameters.append(SQLValue(onlyID))
            sql += " AND id = $\(parameters.count)"
        }
        if let after {
            parameters.append(SQLValue(after))
            sql += " AND id > $\(parameters.count)"
        }
        sql += " ORDER BY id"
        if let limit {
            parameters.append(.integer(Int64(limit)))
            sql += " LIMIT $\(parameters.count)"
        }
        let counted = ledgerSince != nil
        return try transaction.query(sql, parameters).map { row in
            UpdateTarget(
                id: PushTokenID(try row.int("id")), token: try row.string("token"), environment: environment,
                frequentPushesEnabled: try row.bool("frequent_pushes_enabled"),
                environmentSource: PushEnvironmentSource(rawValue: try row.string("environment_source")) ?? .app,
                priorityPushesAccepted: counted ? try row.int("priority_accepted") : nil)
        }
    }

    /// The count of a `push_tokens` row's ledger, its context bound at `$1` and the time since
    /// at `$since`: a range of `deliveries_budget_tokens` (migration 19).
    static func ledgerCount(_ dialect: SQLDialect, since: Int) -> String {
        """
        (SELECT COUNT(*) FROM deliveries
         WHERE deliveries.context_key = $1 AND deliveries.target_kind = 'token'
           AND \(dialect.deliveryTokenID("deliveries")) = push_tokens.id AND deliveries.attempted_at >= $\(since)
           AND deliveries.priority = 10 AND deliveries.status = 200)
        """
    }

    /// The active token of one slot (see ``TokenRegistration/slot``), or `nil`.
    public func activeToken(
        householdID: HouseholdID, environment: PushEnvironment, kind: PushTokenKind, slot: String
    ) throws -> PushTokenRecord? {
        try database.read { transaction in
            try activeToken(householdID: householdID, environment: environment, kind: kind, slot: slot, in: transaction)
        }
    }

    /// ``activeToken(householdID:environment:kind:slot:)`` in the caller's transaction.
    public func activeToken(
        householdID: HouseholdID, environment: PushEnvironment, kind: PushTokenKind, slot: String, in transaction: any SQLTransaction
    ) throws -> PushTokenRecord? {
        try transaction.queryOne(
            """
            SELECT \(PushTokenRecord.columns) FROM push_tokens
            WHERE household_id = $1 AND environment = $2 AND kind = $3 AND slot = $4 AND status = 'active'
            """,
            [SQLValue(householdID), .text(environment.rawValue), .text(kind.rawValue), .text(slot)]
        ).map(PushTokenRecord.init(row:))
    }

    /// The active push-to-start tokens for `attributesType` in one environment of the given users
    /// (and, with `deviceIDs`, only of those devices), by user, device and id: the targets of a start.
    public func startTokens(
        attributesType: String, environment: PushEnvironment, userIDs: [UserID], deviceIDs: [String]?, in transaction: any SQLTransaction
    ) throws -> [PushTokenRecord] {
        var tokens: [PushTokenID: PushTokenRecord] = [:]
        for userID in Set(userIDs) {
            for token in try transaction.query(
                """
                SELECT \(PushTokenRecord.columns) FROM push_tokens
                WHERE kind = 'la-pushToStart' AND attributes_type = $1 AND environment = $2 AND user_id = $3 AND status = 'active'
                """,
                [.text(attributesType), .text(environment.rawValue), SQLValue(userID)]
            ).map(PushTokenRecord.init(row:)) {
                tokens[token.id] = token
            }
        }
        for deviceID in Set(deviceIDs ?? []) {
            for token in try transaction.query(
                """
                SELECT \(PushTokenRecord.columns) FROM push_tokens
                WHERE kind = 'la-pushToStart' AND attributes_type = $1 AND environment = $2 AND device_id = $3 AND status = 'active'
                """,
                [.text(attributesType), .text(environment.rawValue), .text(deviceID)]
            ).map(PushTokenRecord.init(row:)) {
                tokens[token.id] = token
            }
        }
        return tokens.values.sorted { ($0.userID, $0.deviceID, $0.id) < ($1.userID, $1.deviceID, $1.id) }
    }

    /// The devices (`householdID:deviceID`) that show the context's activity already: they have an
    /// active `la-update` token for it, or their app reported rendering one of its revisions
    /// since `since` (the card's start) — a card the app started itself and that follows a
    /// broadcast channel has no update token, only receipts.
    public func devicesShowing(contextKey: String, since: Date, in transaction: any SQLTransaction) throws -> Set<String> {
        let tokens = try transaction.query(
            "SELECT household_id, device_id FROM push_tokens WHERE kind = 'la-update' AND context_key = $1 AND status = 'active'",
            [.text(contextKey)]
        )
        let receipts = try transaction.query(
            "SELECT household_id, device_id FROM la_receipts WHERE context_key = $1 AND received_at >= $2", [.text(contextKey), SQLValue(since)]
        )
        return Set(try (tokens + receipts).map { "\(try $0.int("household_id")):\(try $0.string("device_id"))" })
    }

    /// Whether the device shows the context's standard card: an active `la-update` token of it,
    /// or an `active` report of a standard activity of it (a card that follows a channel has no
    /// token) whose token, if it had one, has not ended. A card reported transient is not one.
    public func showsCard(contextKey: String, householdID: HouseholdID, deviceID: String) throws -> Bool {
        try database.read { transaction in
            try transaction.queryOne(
                """
                SELECT 1 AS shown FROM push_tokens t
                WHERE t.kind = 'la-update' AND t.context_key = $1 AND t.household_id = $2 AND t.device_id = $3 AND t.status = 'active'
                    AND NOT EXISTS (
                        SELECT 1 FROM la_activity_reports r
                        WHERE r.context_key = $1 AND r.household_id = $2 AND r.device_id = $3 AND r.activity_id = t.activity_id
                            AND r.style = 'transient')
                UNION ALL
                SELECT 1 AS shown FROM la_activity_reports r
                WHERE r.context_key = $1 AND r.household_id = $2 AND r.device_id = $3 AND r.state = 'active' AND r.style = 'standard'
                    AND NOT EXISTS (
                        SELECT 1 FROM push_tokens t
                        WHERE t.kind = 'la-update' AND t.context_key = $1 AND t.household_id = $2 AND t.device_id = $3
                            AND r.activity_id <> '' AND t.activity_id = r.activity_id AND t.status <> 'active'
                            AND COALESCE(t.end_reason, '') <> 'replaced')
                """,
                [.text(contextKey), SQLValue(householdID), .text(deviceID)]) != nil
        }
    }

    /// The active tokens of one kind of the given user in one environment, by device and id.
    public func activeTokens(
        userID: UserID, kind: PushTokenKind, environment: PushEnvironment, in transaction: any SQLTransaction
    ) throws -> [PushTokenRecord] {
        try transaction.query(
            """
            SELECT \(PushTokenRecord.columns) FROM push_tokens
            WHERE user_id = $1 AND kind = $2 AND environment = $3 AND status = 'active' ORDER BY device_id, id
            """,
            [SQLValue(userID), .text(kind.rawValue), .text(environment.rawValue)]
        ).map(PushTokenRecord.init(row:))
    }

    /// Marks a push-to-start token suspect (its start went unanswered), unless it is already.
    @discardableResult
    public func markSuspect(id: PushTokenID, reason: String, now: Date) throws -> Bool {
        try write { transaction in try markSuspect(id: id, reason: reason, now: now, in: transaction) }
    }

    /// The same in the caller's transaction (the caller bumps ``changes`` after it).
    @discardableResult
    public func markSuspect(id: PushTokenID, reason: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            "UPDATE push_tokens SET suspect_at = $2, suspect_reason = $3 WHERE id = $1 AND suspect_at IS NULL",
            [SQLValue(id), SQLValue(now), .text(reason)]
        ) == 1
    }

    /// How many active tokens are suspect.
    public func suspectCount() throws -> Int {
        try database.read { transaction in
            try transaction.queryOne("SELECT COUNT(*) AS n FROM push_tokens WHERE status = 'active' AND suspect_at IS NOT NULL")?.int("n") ?? 0
        }
    }

    /// Ends the user's active `la-update` tokens for `contextKey` (the user dismissed the activity:
    /// its token is of no use any more); returns how many. In the caller's transaction (the caller
    /// bumps ``changes`` after it).
    @discardableResult
    public func endUpdateTokens(contextKey: String, userID: UserID, reason: String, now: Date, in transaction: any SQLTransaction) throws -> Int {
        try transaction.execute(
            """
            UPDATE push_tokens SET status = 'invalid', ended_at = $3, end_reason = $4
            WHERE user_id = $1 AND kind = 'la-update' AND context_key = $2 AND status = 'active'
            """,
            [SQLValue(userID), .text(contextKey), SQLValue(now), .text(reason)]
        )
    }

    /// Ends the device's update tokens of the context's activity `activityID` (the app reported
    /// it ended); returns how many. In the caller's transaction.
    @discardableResult
    public func endUpdateTokens(
        contextKey: String, householdID: HouseholdID, deviceID: String, activityID: String, reason: String, now: Date,
        in transaction: any SQLTransaction
    ) throws -> Int {
        try transaction.execute(
            """
            UPDATE push_tokens SET status = 'invalid', ended_at = $5, end_reason = $6
            WHERE household_id = $1 AND device_id = $2 AND kind = 'la-update' AND context_key = $3 AND activity_id = $4 AND status = 'active'
            """,
            [SQLValue(householdID), .text(deviceID), .text(contextKey), .text(activityID), SQLValue(now), .text(reason)]
        )
    }

    /// The device answered a start: its push-to-start tokens are no longer suspect. In the
    /// caller's transaction.
    public func clearStartSuspicion(householdID: HouseholdID, deviceID: String, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            UPDATE push_tokens SET suspect_at = NULL, suspect_reason = NULL
            WHERE household_id = $1 AND device_id = $2 AND kind = 'la-pushToStart' AND suspect_at IS NOT NULL
            """,
            [SQLValue(householdID), .text(deviceID)]
        )
    }

    /// Ends every active `la-update` token of `contextKey` in the caller's transaction (their
    /// activities ended with the context's previous card).
    public func endUpdateTokens(contextKey: String, reason: String, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            UPDATE push_tokens SET status = 'invalid', ended_at = $2, end_reason = $3
            WHERE kind = 'la-update' AND context_key = $1 AND status = 'active'
            """,
            [.text(contextKey), SQLValue(now), .text(reason)]
        )
    }

    /// The household's active tokens, by user, device, kind and id.
    public func activeTokens(householdID: HouseholdID) throws -> [PushTokenRecord] {
        try database.read { transaction in
            try transaction.query(
                """
                SELECT \(PushTokenRecord.columns) FROM push_tokens
                WHERE household_id = $1 AND status = 'active' ORDER BY user_id, device_id, kind, id
                """,
                [SQLValue(householdID)]
            ).map(PushTokenRecord.init(row:))
        }
    }

    /// Every row of the household, active and ended, newest first.
    public func history(householdID: HouseholdID) throws -> [PushTokenRecord] {
        try database.read { transaction in
            try transaction.query(
                "SELECT \(PushTokenRecord.columns) FROM push_tokens WHERE household_id = $1 ORDER BY id DESC",
                [SQLValue(householdID)]
            ).map(PushTokenRecord.init(row:))
        }
    }

    /// The row with `id`, active or ended, or `nil`.
    public func record(id: PushTokenID) throws -> PushTokenRecord? {
        try database.read { transaction in
            try transaction.queryOne("SELECT \(PushTokenRecord.columns) FROM push_tokens WHERE id = $1", [SQLValue(id)])
                .map(PushTokenRecord.init(row:))
        }
    }

    /// How many active tokens of `kind` there are, across households.
    public func countActive(kind: PushTokenKind) throws -> Int {
        try database.read { transaction in
            try transaction.queryOne("SELECT COUNT(*) AS n FROM push_tokens WHERE kind = $1 AND status = 'active'", [.text(kind.rawValue)])?
                .int("n") ?? 0
        }
    }

    /// The tokens with these ids that exist, in one read (a dispatcher's batch).
    public func records(ids: [PushTokenID]) throws -> [PushTokenID: PushTokenRecord] {
        guard !ids.isEmpty else { return [:] }
        return try database.read { transaction in
            var records: [PushTokenID: PushTokenRecord] = [:]
            for row in try transaction.query(
                "SELECT \(PushTokenRecord.columns) FROM push_tokens WHERE \(database.dialect.isOneOf("id", "$1"))",
                [database.dialect.idList(ids.map(\.rawValue))]
            ) {
                let record = try PushTokenRecord(row: row)
                records[record.id] = record
            }
            return records
        }
    }

    /// Inserts an active row unless the slot is taken (by a concurrent transaction); `true` when inserted.
    private func insert(_ registration: TokenRegistration, slot: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try !transaction.query(
            """
            INSERT INTO push_tokens (household_id, user_id, device_id, kind, environment, attributes_type, context_key, slot,
                token, status, frequent_pushes_enabled, first_registered_at, last_registered_at, environment_source, contract_fingerprint,
                widget_kinds, activity_id, widget_push_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $11, $12, $13, $14, $15,
                -- A device's new widget token keeps its widget pushes' pacing (docs/engine.md, "Widget pushes").
                (SELECT MAX(old.widget_push_at) FROM push_tokens AS old
                 WHERE old.household_id = $1 AND old.environment = $5 AND old.kind = $4 AND old.kind = 'widgets' AND old.slot = $8))
            ON CONFLICT (household_id, environment, kind, slot) WHERE status = 'active' DO NOTHING
            RETURNING id
            """,
            [
                SQLValue(registration.householdID), SQLValue(registration.userID), .text(registration.deviceID),
                .text(registration.kind.rawValue), .text(registration.environment.rawValue),
                SQLValue(registration.attributesType), SQLValue(registration.contextKey), .text(slot), .text(registration.token),
                SQLValue(registration.frequentPushesEnabled), SQLValue(now), .text(registration.environmentSource.rawValue),
                SQLValue(registration.contractFingerprint), SQLValue(PushTokenRecord.widgetKindsJSON(registration.widgetKinds)),
                SQLValue(registration.activityID),
            ]
        ).isEmpty
    }
}
