import Foundation
import LivelineEngine
import LivelineModel
import LivelineShoppingModel
import LivelineStore

/// The household's weekly shopping list (docs/features/shopping.md): items, the chronology of
/// tracked actions, shopping sessions. Every mutation writes its rows, appends the event and
/// records the week's change — one transaction through the engine's door (`EngineDoor.write`), which bumps
/// the revision and enqueues the sync. A mutation with an actor refreshes that actor's active
/// session and never creates one.
public struct ShoppingDomain: Sendable {
    /// Where every write and read goes through.
    public let door: EngineDoor
    /// A shopper whose heartbeat is older than this is no longer in the shop.
    public let presenceTimeout: TimeInterval

    public init(door: EngineDoor, presenceTimeout: TimeInterval = 15 * 60) {
        self.door = door
        self.presenceTimeout = presenceTimeout
    }

    // MARK: Items

    /// Adds an item at the end of the week's list.
    public func addItem(
        week: ShoppingWeek, householdID: HouseholdID, actor: UserID, label: String, price: Double?, now: Date
    ) throws -> (item: ShoppingListItem, rev: Int) {
        try door.write(now: now) { change in
            try addItem(week: week, householdID: householdID, actor: actor, label: label, price: price, in: change)
        }
    }

    /// ``addItem(week:householdID:actor:label:price:now:)`` as part of another feature's write
    /// (meal planning adds a decided dish's ingredients): the same rows, story and revision.
    public func addItem(
        week: ShoppingWeek, householdID: HouseholdID, actor: UserID, label: String, price: Double?, in change: EngineWrite
    ) throws -> (item: ShoppingListItem, rev: Int) {
        let transaction = change.sql
        let now = change.now
        let key = try ensureContext(week: week, householdID: householdID, in: change)
        let position =
            try transaction.queryOne(
                "SELECT COALESCE(MAX(position), 0) + 1 AS next FROM shopping_items WHERE household_id = $1 AND week = $2",
                [SQLValue(householdID), .text(week.monday)]
            )?.int("next") ?? 1
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO shopping_items (household_id, week, label, price, position, done, added_by, added_at)
                VALUES ($1, $2, $3, $4, $5, 0, $6, $7)
                RETURNING \(ShoppingListItem.columns)
                """,
                [
                    SQLValue(householdID), .text(week.monday), .text(label), price.map(SQLValue.real) ?? .null, SQLValue(position),
                    SQLValue(actor), SQLValue(now),
                ]
            )
        else { throw StoreError(.database, "adding an item returned no row") }
        let item = try ShoppingListItem(row: row)
        let rev = try track(.added, item: item, key: key, week: week, householdID: householdID, actor: actor, in: change)
        return (item, rev)
    }

    /// Checks off / puts back / edits an item of the caller's household. Nil when there is none.
    /// A call that changes nothing (e.g. checking off a checked item again, a retry) writes no
    /// event and keeps the revision; it still refreshes the actor's active session.
    public func updateItem(
        id: Int, householdID: HouseholdID, actor: UserID, done: Bool?, label: String?, price: Double??, position: Int?, now: Date
    ) throws -> (item: ShoppingListItem, rev: Int)? {
        try door.write(now: now) { change in
            let transaction = change.sql
            guard try item(id: id, householdID: householdID, in: transaction) != nil else { return nil }
            let week = try weekOfItem(id, in: transaction)
            // The week's writes by several instances queue up; the item is read again after.
            try lockWeek(week, householdID: householdID, in: change)
            guard let current = try item(id: id, householdID: householdID, in: transaction) else { return nil }
            var action: ShoppingAction?
            if let done, done != current.done {
                action = done ? .checked : .unchecked
                try transaction.execute(
                    "UPDATE shopping_items SET done = $2, checked_by = $3, checked_at = $4 WHERE id = $1",
                    [SQLValue(id), SQLValue(done), done ? SQLValue(actor) : .null, done ? SQLValue(now) : .null]
                )
            }
            if let label, label != current.label {
                action = action ?? .edited
                try transaction.execute("UPDATE shopping_items SET label = $2 WHERE id = $1", [SQLValue(id), .text(label)])
            }
            if let price, price != current.price {
                action = action ?? .edited
                try transaction.execute("UPDATE shopping_items SET price = $2 WHERE id = $1", [SQLValue(id), price.map(SQLValue.real) ?? .null])
            }
            if let position, position != current.position {
                action = action ?? .edited
                try transaction.execute("UPDATE shopping_items SET position = $2 WHERE id = $1", [SQLValue(id), SQLValue(position)])
            }
            guard let action else {
                try refreshSession(week: week, householdID: householdID, actor: actor, now: now, in: transaction)
                let rev = try change.revision(week.contextKey(householdID: householdID)) ?? 0
                return (current, rev)
            }
            let key = try ensureContext(week: week, householdID: householdID, in: change)
            guard let updated = try item(id: id, householdID: householdID, in: transaction) else { return nil }
            let rev = try track(action, item: updated, key: key, week: week, householdID: householdID, actor: actor, in: change)
            return (updated, rev)
        }
    }

    /// Removes an item of the caller's household; nil when there is none.
    public func removeItem(id: Int, householdID: HouseholdID, actor: UserID, now: Date) throws -> Int? {
        try door.write(now: now) { change in
            let transaction = change.sql
            guard try item(id: id, householdID: householdID, in: transaction) != nil else { return nil }
            let week = try weekOfItem(id, in: transaction)
            let key = try ensureContext(week: week, householdID: householdID, in: change)
            // Read again under the week's lock: removed meanwhile by another instance.
            guard let current = try item(id: id, householdID: householdID, in: transaction) else { return nil }
            try transaction.execute("DELETE FROM shopping_items WHERE id = $1", [SQLValue(id)])
            return try track(.removed, item: current, key: key, week: week, householdID: householdID, actor: actor, in: change)
        }
    }

    /// The pull of `GET /api/shopping/{week}?since_rev=N`, from one read transaction: the
    /// revision first; when it equals `sinceRev` nothing else is read; else the items and the
    /// card's content state. A week nobody touched yet is revision 0 with no items.
    public func read(week: ShoppingWeek, householdID: HouseholdID, sinceRev: Int?, snapshot: ShoppingSnapshotSource) throws -> ShoppingRead {
        let key = week.contextKey(householdID: householdID)
        // The push-woken pull of an app that is up to date: answered from the revision cache.
        if let sinceRev, try door.cachedRevision(key: key) ?? 0 == sinceRev {
            return .unchanged(rev: sinceRev)
        }
        return try door.read { read in
            let transaction = read.sql
            let rev = try read.revision(key) ?? 0
            if let sinceRev, sinceRev == rev { return .unchanged(rev: rev) }
            let context = try read.context(key)
            let items = try items(week: week, householdID: householdID, in: transaction)
            let state = try snapshot.state(
                week: week, householdID: householdID, rev: rev, ended: context?.state == .ended, items: items, in: transaction)
            return .changed(rev: rev, items: items, state: state)
        }
    }

    /// The week's items in list order, as of another feature's write.
    public func items(week: ShoppingWeek, householdID: HouseholdID, in change: EngineWrite) throws -> [ShoppingListItem] {
        try items(week: week, householdID: householdID, in: change.sql)
    }

    /// The week's items in list order.
    public func items(week: ShoppingWeek, householdID: HouseholdID) throws -> [ShoppingListItem] {
        try door.read { read in try items(week: week, householdID: householdID, in: read.sql) }
    }

    // MARK: Sessions

    /// `actor` starts shopping: an active session, a change of the card (a shopper joins). When
    /// nobody was shopping, a new trip begins: an ended card starts again (a new card, its
    /// 8-hour lifetime from now), an active one without shoppers gets its lifetime from now, and
    /// sessions left open by a previous trip close. Already shopping: the session is refreshed and
    /// nothing changes. Returns the revision and whether a new trip began.
    @discardableResult
    public func startSession(week: ShoppingWeek, householdID: HouseholdID, actor: UserID, now: Date) throws -> (rev: Int, newTrip: Bool) {
        try door.write(now: now) { change in
            let transaction = change.sql
            let key = week.contextKey(householdID: householdID)
            // Two shoppers starting at once queue up on the week's card, made first when the week
            // has none (or found, made by another instance meanwhile): the second sees the first's session.
            try ensureContext(week: week, householdID: householdID, in: change)
            guard let context = try change.context(key) else { throw EngineError(.notFound, "the week's card is gone") }
            var newTrip = false
            if context.state == .ended {
                try change.reopen(key)
                newTrip = true
            } else if try activeShopperIDs(week: week, householdID: householdID, now: now, in: transaction).isEmpty {
                try change.restartLifetime(key)
                newTrip = true
            }
            if newTrip {
                try transaction.execute(
                    "UPDATE shopping_sessions SET ended_at = $3 WHERE household_id = $1 AND week = $2 AND ended_at IS NULL",
                    [SQLValue(householdID), .text(week.monday), SQLValue(now)]
                )
            } else if try refreshSession(week: week, householdID: householdID, actor: actor, now: now, in: transaction) > 0 {
                return (try change.revision(key) ?? 0, false)
            } else {
                // A session of the actor that lapsed and was not swept yet ends now.
                try transaction.execute(
                    "UPDATE shopping_sessions SET ended_at = $4 WHERE household_id = $1 AND week = $2 AND user_id = $3 AND ended_at IS NULL",
                    [SQLValue(householdID), .text(week.monday), SQLValue(actor), SQLValue(now)]
                )
            }
            try transaction.execute(
                "INSERT INTO shopping_sessions (household_id, week, user_id, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $4)",
                [SQLValue(householdID), .text(week.monday), SQLValue(actor), SQLValue(now)]
            )
            let note = newTrip ? "shopper \(actor) started a trip" : "shopper \(actor) joined"
            return (try change.recordChange(key, note: note), newTrip)
        }
    }

    /// Keeps `actor`'s session alive; false when they have no active session (none is created).
    public func heartbeat(week: ShoppingWeek, householdID: HouseholdID, actor: UserID, now: Date) throws -> Bool {
        try door.write(now: now) { change in
            try refreshSession(week: week, householdID: householdID, actor: actor, now: now, in: change.sql) > 0
        }
    }

    /// `actor` leaves the shop. When nobody is left shopping, the trip is finished: the card ends.
    /// Returns the revision and whether the trip finished; nil when `actor` was not shopping (a
    /// lapsed session is closed without a change: they had left the card already).
    public func endSession(week: ShoppingWeek, householdID: HouseholdID, actor: UserID, now: Date) throws -> (rev: Int, finished: Bool)? {
        try door.write(now: now) { change in
            let transaction = change.sql
            // The last two shoppers leaving at once queue up: the second sees the first gone.
            try lockWeek(week, householdID: householdID, in: change)
            let left = try transaction.execute(
                """
                UPDATE shopping_sessions SET ended_at = $4
                WHERE household_id = $1 AND week = $2 AND user_id = $3 AND ended_at IS NULL AND heartbeat_at >= $5
                """,
                [SQLValue(householdID), .text(week.monday), SQLValue(actor), SQLValue(now), SQLValue(now.addingTimeInterval(-presenceTimeout))]
            )
            try transaction.execute(
                "UPDATE shopping_sessions SET ended_at = $4 WHERE household_id = $1 AND week = $2 AND user_id = $3 AND ended_at IS NULL",
                [SQLValue(householdID), .text(week.monday), SQLValue(actor), SQLValue(now)]
            )
            guard left > 0 else { return nil }
            let key = week.contextKey(householdID: householdID)
            guard let context = try change.context(key) else { return nil }
            if context.state == .ended { return (context.rev, true) }
            if try activeShopperIDs(week: week, householdID: householdID, now: now, in: transaction).isEmpty {
                return (try change.end(key, note: "the last shopper left").rev, true)
            }
            return (try change.recordChange(key, note: "shopper \(actor) left"), false)
        }
    }

    /// Ends the sessions whose heartbeat lapsed; each is a change of its week's card, and when
    /// the last shopper of a trip lapsed, the trip is finished (the card ends). Returns how many.
    @discardableResult
    public func expireSessions(now: Date) throws -> Int {
        // Runs every second: a read finds nothing lapsed almost always, and then nothing is written.
        let anyLapsed = try door.read { read in
            try read.sql.queryOne(
                "SELECT 1 AS lapsed FROM shopping_sessions WHERE ended_at IS NULL AND heartbeat_at < $1 LIMIT 1",
                [SQLValue(now.addingTimeInterval(-presenceTimeout))]
            ) != nil
        }
        guard anyLapsed else { return 0 }
        return try door.write(now: now) { change in
            let transaction = change.sql
            let cutoff = SQLValue(now.addingTimeInterval(-presenceTimeout))
            let lapsed = try transaction.query(
                "SELECT id, household_id, week FROM shopping_sessions WHERE ended_at IS NULL AND heartbeat_at < $1 ORDER BY id", [cutoff])
            var weeks: [String: (householdID: HouseholdID, week: ShoppingWeek)] = [:]
            for row in lapsed {
                let householdID = HouseholdID(try row.int("household_id"))
                if let week = ShoppingWeek(try row.string("week")) { weeks[week.contextKey(householdID: householdID)] = (householdID, week) }
            }
            // The cards first, in key order, as every write of a week holds its card before its
            // sessions: a shopper's request on another instance never waits for this in a circle.
            try change.lockContexts(Array(weeks.keys))
            var ended = 0
            var changed: Set<String> = []
            for row in lapsed {
                // Another instance's sweep may have ended it, or a heartbeat kept it, meanwhile.
                guard
                    try transaction.execute(
                        "UPDATE shopping_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL AND heartbeat_at < $3",
                        [SQLValue(try row.int("id")), SQLValue(now), cutoff]) == 1
                else { continue }
                ended += 1
                if let week = ShoppingWeek(try row.string("week")) {
                    changed.insert(week.contextKey(householdID: HouseholdID(try row.int("household_id"))))
                }
            }
            for (key, lapsedWeek) in weeks.sorted(by: { $0.key < $1.key }) where changed.contains(key) {
                guard try change.context(key)?.state == .active else { continue }
                if try activeShopperIDs(week: lapsedWeek.week, householdID: lapsedWeek.householdID, now: now, in: transaction).isEmpty {
                    try change.end(key, note: "the last shopper's session timed out: the trip is finished")
                } else {
                    try change.recordChange(key, note: "a shopper's session timed out")
                }
            }
            return ended
        }
    }

    // MARK: Internals

    /// Holds the week's context row to the end of the transaction (when it has one): a week's
    /// writes by several instances go one after the other (``EngineWrite/lockContext(_:)``).
    public func lockWeek(_ week: ShoppingWeek, householdID: HouseholdID, in change: EngineWrite) throws {
        _ = try change.lockContext(week.contextKey(householdID: householdID))
    }

    /// The week's context, created (rev 0) when it has none. An ended one stays ended: changes
    /// after the trip count revisions (the pull shows them) but push nothing; only a new shopping
    /// session starts a new card.
    @discardableResult
    func ensureContext(week: ShoppingWeek, householdID: HouseholdID, in change: EngineWrite) throws -> String {
        let key = week.contextKey(householdID: householdID)
        // Held to the end of the transaction: the week's writes by several instances queue up.
        if try change.lockContext(key) == nil {
            do {
                try change.createContext(
                    key: key, activityType: ShoppingActivityAttributes.typeName, householdID: householdID,
                    attributes: #"{"week":"\#(week.monday)"}"#
                )
            } catch let error as StoreError where error.code == .alreadyExists {
                // Another instance created it meanwhile: it is there now.
            }
            _ = try change.lockContext(key)
        }
        return key
    }

    /// Appends the event, refreshes the actor's active session (never creates one), bumps the rev.
    private func track(
        _ action: ShoppingAction, item: ShoppingListItem, key: String, week: ShoppingWeek, householdID: HouseholdID, actor: UserID,
        in change: EngineWrite
    ) throws -> Int {
        let transaction = change.sql
        let now = change.now
        try transaction.execute(
            "INSERT INTO shopping_events (household_id, week, action, actor_id, item_id, item_label, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [SQLValue(householdID), .text(week.monday), .text(action.rawValue), SQLValue(actor), SQLValue(item.id), .text(item.label), SQLValue(now)]
        )
        try refreshSession(week: week, householdID: householdID, actor: actor, now: now, in: transaction)
        return try change.recordChange(key, note: "\(action.rawValue) \(item.label)")
    }

    @discardableResult
    private func refreshSession(
        week: ShoppingWeek, householdID: HouseholdID, actor: UserID, now: Date, in transaction: any SQLTransaction
    ) throws -> Int {
        try transaction.execute(
            """
            UPDATE shopping_sessions SET heartbeat_at = $4
            WHERE household_id = $1 AND week = $2 AND user_id = $3 AND ended_at IS NULL AND heartbeat_at >= $5
            """,
            [SQLValue(householdID), .text(week.monday), SQLValue(actor), SQLValue(now), SQLValue(now.addingTimeInterval(-presenceTimeout))]
        )
    }

    func activeShopperIDs(week: ShoppingWeek, householdID: HouseholdID, now: Date, in transaction: any SQLTransaction) throws -> [UserID] {
        try transaction.query(
            """
            SELECT user_id FROM shopping_sessions
            WHERE household_id = $1 AND week = $2 AND ended_at IS NULL AND heartbeat_at >= $3 ORDER BY started_at, id
            """,
            [SQLValue(householdID), .text(week.monday), SQLValue(now.addingTimeInterval(-presenceTimeout))]
        ).map { UserID(try $0.int("user_id")) }
    }

    func items(week: ShoppingWeek, householdID: HouseholdID, in transaction: any SQLTransaction) throws -> [ShoppingListItem] {
        try transaction.query(
            "SELECT \(ShoppingListItem.columns) FROM shopping_items WHERE household_id = $1 AND week = $2 ORDER BY position, id",
            [SQLValue(householdID), .text(week.monday)]
        ).map(ShoppingListItem.init(row:))
    }

    private func item(id: Int, householdID: HouseholdID, in transaction: any SQLTransaction) throws -> ShoppingListItem? {
        try transaction.queryOne(
            "SELECT \(ShoppingListItem.columns) FROM shopping_items WHERE id = $1 AND household_id = $2", [SQLValue(id), SQLValue(householdID)]
        ).map(ShoppingListItem.init(row:))
    }

    private func weekOfItem(_ id: Int, in transaction: any SQLTransaction) throws -> ShoppingWeek {
        guard let text = try transaction.queryOne("SELECT week FROM shopping_items WHERE id = $1", [SQLValue(id)])?.string("week"),
            let week = ShoppingWeek(text)
        else { throw StoreError(.column, "shopping_items.week holds no ISO Monday") }
        return week
    }
}
