import Foundation
import LivelineModel
import LivelineStore

/// One write transaction through the engine (``Engine/write(_:)``): the only way a feature
/// changes anything. The feature writes its own tables through ``sql`` and changes contexts
/// through the methods here, which keep the engine's rules: every change the card shows bumps the
/// revision and enqueues the sync row in this same transaction; after the end nothing is sent;
/// a new card of a context retires what belonged to the previous one.
public struct EngineWrite {
    /// The transaction, for the feature's own tables (never the core's: their rules are here).
    public let sql: any SQLTransaction
    /// The engine's clock when the transaction began.
    public let now: Date
    let store: Store
    /// What the transaction changed that caches of other transactions must learn once it is over.
    let effects: Effects
    /// Which widgets show a change, and how their pushes are paced.
    let widgets: WidgetPushes

    init(sql: any SQLTransaction, now: Date, store: Store, effects: Effects, widgets: WidgetPushes) {
        self.sql = sql
        self.now = now
        self.store = store
        self.effects = effects
        self.widgets = widgets
    }

    /// Changes that caches learn of after the transaction (``EngineDoor/write(now:_:)``): a bump
    /// before the commit would let a reader cache the state before it under the new count.
    final class Effects {
        var tokensChanged = false
    }

    /// The context `key` as of this transaction; nil when there is none.
    public func context(_ key: String) throws -> ContextRecord? { try store.contexts.context(key: key, in: sql) }

    /// The revision of `key` as of this transaction; nil when there is no such context.
    public func revision(_ key: String) throws -> Int? { try store.contexts.revision(key: key, in: sql) }

    /// The revision of `key`, its row held until this transaction ends, so a read-then-write of
    /// the context's rows (the next position in a list) is not interleaved with another
    /// instance's (``ContextRepository/lock(key:in:)``). Nil when there is no such context.
    public func lockContext(_ key: String) throws -> Int? { try store.contexts.lock(key: key, in: sql) }

    /// ``lockContext(_:)`` that returns the whole row it holds; nil when there is no such context.
    public func lockedContext(_ key: String) throws -> ContextRecord? { try store.contexts.lockedContext(key: key, in: sql) }

    /// Holds the rows of `keys` that exist to the end of the transaction, taken in key order (as
    /// the dispatcher's recording takes them), so two writes holding several never wait for each
    /// other in a circle.
    public func lockContexts(_ keys: [String]) throws { try store.contexts.lock(keys: keys, in: sql) }

    /// Creates an active context at revision 0, started now with an 8-hour deadline; a change
    /// recorded next (``recordChange(_:note:)``) is its first push. `householdID` owns it (nil:
    /// the `/v1` API); `attributes` (and, for `/v1` contexts, `contentState`) are JSON. Throws
    /// `.alreadyExists` (a store error) when the key is taken.
    @discardableResult
    public func createContext(
        key: String, activityType: String, householdID: HouseholdID?, attributes: String, contentState: String? = nil
    ) throws -> ContextRecord {
        try store.contexts.create(
            key: key, activityType: activityType, householdID: householdID, attributes: attributes, contentState: contentState, now: now, in: sql
        )
    }

    /// Records that what the context's card shows changed: the revision goes up by one and the
    /// sync row is enqueued (coalesced; none while nobody may follow the context), both in this
    /// transaction; returns the new revision. For an ended context the revision still goes up (a
    /// pull tells the truth) but nothing is sent.
    /// The household's widgets that show the context get their paced push
    /// (``enqueueWidgetPushes(for:activityType:householdID:)``), unless `widgetsSeeIt` is false: a revision that changes
    /// nothing a widget shows (a renewal's: the same state, for the successor's start) spends
    /// none of the widgets' reloads. Throws `.notFound`.
    @discardableResult
    public func recordChange(_ key: String, note: String? = nil, widgetsSeeIt: Bool = true) throws -> Int {
        let change: RecordedChange
        do {
            change = try store.contexts.recordedChange(key: key, now: now, note: note, in: sql)
        } catch let error as StoreError where error.code == .notFound {
            throw EngineError(.notFound, error.message)
        }
        if widgetsSeeIt, let householdID = change.householdID {
            try enqueueWidgetPushes(for: key, activityType: change.activityType, householdID: householdID)
        }
        return change.rev
    }

    /// Stores a `/v1` context's state as given and records the change
    /// (``ContextRepository/recordGivenState(_:key:now:note:in:)``); nil, with nothing changed,
    /// unless the context is active, of the given type and no household's (no widget shows it).
    func recordGivenState(_ given: GivenState, key: String, note: String?) throws -> RecordedChange? {
        try store.contexts.recordGivenState(given, key: key, now: now, note: note, in: sql)
    }

    /// Ends the context: its activities get the final state as the `end` event, and starts not
    /// yet sent are cancelled (they would open cards nothing ends). Ending an ended context
    /// changes nothing and says so. Throws `.notFound`.
    /// `at`: when it ended, if before now (a ride that arrived a moment before it was seen; a type
    /// in ``EngineConfiguration/typesDismissedFromTheirEnd`` is dismissed counted from it).
    @discardableResult
    public func end(_ key: String, note: String? = "ended", at endedAt: Date? = nil) throws -> ContextEndResult {
        let result: ContextEndResult
        do {
            result = try store.contexts.end(key: key, now: min(endedAt ?? now, now), note: note, in: sql)
        } catch let error as StoreError where error.code == .notFound {
            throw EngineError(.notFound, error.message)
        }
        if !result.alreadyEnded {
            try store.starts.cancelQueued(contextKey: key, reason: "the context ended before the start went out", now: now, in: sql)
            if let context = try store.contexts.context(key: key, in: sql), let householdID = context.householdID {
                try enqueueWidgetPushes(for: key, activityType: context.activityType, householdID: householdID)
            }
        }
        return result
    }

    /// Starts an ended context again: a new card, started now with a new 8-hour deadline; the
    /// revision keeps counting up. What belonged to the previous card goes: its starts (each
    /// device may be started again), its dismissals, and the update tokens of its activities (they
    /// ended on the phones). Throws `.notFound`.
    public func reopen(_ key: String) throws {
        do {
            try store.contexts.reopen(key: key, now: now, in: sql)
        } catch let error as StoreError where error.code == .notFound {
            throw EngineError(.notFound, error.message)
        }
        try store.starts.retire(contextKey: key, now: now, in: sql)
        try store.reports.clearDismissals(contextKey: key, in: sql)
        try store.reports.clearActivities(contextKey: key, in: sql)
        try store.tokens.endUpdateTokens(contextKey: key, reason: "its activity ended with the previous card", now: now, in: sql)
        effects.tokensChanged = true
    }

    /// Sets `resolved = 1` on the user's notification with `dedupeKey` (an invitation whose
    /// occasion is over: the app greys it out), in this transaction; false when there is none.
    @discardableResult
    public func resolveNotification(userID: UserID, dedupeKey: String) throws -> Bool {
        try store.notifications.resolve(userID: userID, dedupeKey: dedupeKey, in: sql)
    }

    /// The device answered the context's start (its update token came, or a receipt): the start
    /// is answered and the device's push-to-start tokens are no longer suspect.
    func answerStart(contextKey: String, householdID: HouseholdID, deviceID: String) throws {
        if try store.starts.answered(contextKey: contextKey, householdID: householdID, deviceID: deviceID, now: now, in: sql) {
            try store.tokens.clearStartSuspicion(householdID: householdID, deviceID: deviceID, in: sql)
            effects.tokensChanged = true
        }
    }

    /// A new run of an active context that no phone shows a card of: started now with a new
    /// 8-hour deadline. Throws `.notFound`.
    public func restartLifetime(_ key: String) throws {
        do {
            try store.contexts.restartLifetime(key: key, now: now, in: sql)
        } catch let error as StoreError where error.code == .notFound {
            throw EngineError(.notFound, error.message)
        }
    }
}

/// One read transaction through the engine (``Engine/read(_:)``): a consistent view for a
/// feature's own tables (``sql``) and the contexts.
public struct EngineRead {
    public let sql: any SQLTransaction
    let store: Store

    /// The context `key` as of this transaction; nil when there is none.
    public func context(_ key: String) throws -> ContextRecord? { try store.contexts.context(key: key, in: sql) }

    /// The revision of `key` as of this transaction; nil when there is no such context.
    public func revision(_ key: String) throws -> Int? { try store.contexts.revision(key: key, in: sql) }
}

/// The door every write goes through (``Engine/write(now:_:)``, or a feature's own copy from its
/// setup, before the engine exists): the same transaction rules whoever holds it.
public struct EngineDoor: Sendable {
    let store: Store
    let clock: @Sendable () -> Date
    let widgets: WidgetPushes

    /// The door over `store`, with the engine's clock and how changes reach widgets.
    public init(store: Store, clock: @escaping @Sendable () -> Date, widgets: WidgetPushes = WidgetPushes()) {
        self.store = store
        self.clock = clock
        self.widgets = widgets
    }

    /// Runs `body` in one write transaction (docs/architecture.md, "The path of a write"); once it
    /// committed, the dispatchers are woken for what it enqueued. A throw rolls everything back.
    /// `now` is the time the write records (the clock's when not given).
    /// `enqueued` tells from the result whether the write may have enqueued rows (else no
    /// dispatcher is woken for it; they look on their own within their idle poll).
    @discardableResult
    public func write<T>(now: Date? = nil, enqueued: (T) -> Bool = { _ in true }, _ body: (EngineWrite) throws -> T) throws -> T {
        let now = now ?? clock()
        let effects = EngineWrite.Effects()
        // Committed or rolled back: a bump too many only costs a cache its next read.
        defer { if effects.tokensChanged { store.tokens.changes.bump() } }
        return try store.write(
            { transaction in try body(EngineWrite(sql: transaction, now: now, store: store, effects: effects, widgets: widgets)) },
            enqueued: enqueued)
    }

    /// Runs `body` in one read transaction.
    public func read<T>(_ body: (EngineRead) throws -> T) throws -> T {
        try store.database.read { transaction in try body(EngineRead(sql: transaction, store: store)) }
    }

    /// The revision of `key`, answered from memory while nothing committed since it was read
    /// (see `RevisionCache`); nil for an unknown key. For the pulls of apps that are up to date.
    public func cachedRevision(key: String) throws -> Int? {
        try store.revisions.revision(key: key) { try store.contexts.revision(key: key) }
    }
}

extension Engine {
    /// The door of this engine's writes and reads.
    public var door: EngineDoor { EngineDoor(store: store, clock: configuration.clock, widgets: configuration.widgetPushes) }

    /// ``EngineDoor/write(now:_:)``.
    @discardableResult
    public func write<T>(now: Date? = nil, _ body: (EngineWrite) throws -> T) throws -> T { try door.write(now: now, body) }

    /// ``EngineDoor/read(_:)``.
    public func read<T>(_ body: (EngineRead) throws -> T) throws -> T { try door.read(body) }
}
