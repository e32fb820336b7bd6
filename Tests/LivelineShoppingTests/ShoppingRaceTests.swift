import Foundation
import LivelineEngine
import LivelineModel
import LivelineShopping
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// A week's writes by several instances on one PostgreSQL, made to overlap: every transaction
/// holds its locks 0.4 s before it commits (`SlowCommitDatabase`), so the second shopper's write
/// runs while the first's is uncommitted. Without the week's context row held, both saw a stale
/// week (write skew).
@Suite(.serialized) struct ShoppingRaceTests {
    final class Fixture: Sendable {
        let slow: SlowCommitDatabase
        let store: Store
        let domain: ShoppingDomain
        let week = ShoppingWeek("2026-01-05")!
        let anna: UserRecord
        let ben: UserRecord
        let now = Date(timeIntervalSince1970: 1_767_600_000)
        init() throws {
            slow = SlowCommitDatabase(inner: try TestPostgres.freshDatabase().database)
            store = try Store.open(slow, features: [ShoppingFeature().featureMigrations])
            domain = ShoppingDomain(door: EngineDoor(store: store, clock: { Date() }))
            anna = try store.accounts.createUser(
                household: "Fisch", name: "Anna", avatarTint: "coral", emoji: "🐠", locale: "de", tokenHash: "a", now: now)
            ben = try store.accounts.createUser(
                household: "Fisch", name: "Ben", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: "b", now: now)
        }
        var key: String { week.contextKey(householdID: anna.householdID) }
    }

    /// Runs `body` for Anna and Ben at once, each write holding its locks 0.4 s before it commits;
    /// what each returned (or threw), as text.
    static func together(_ f: Fixture, _ body: @escaping @Sendable (UserID) throws -> any Sendable) -> [String] {
        f.slow.delay = 0.4
        defer { f.slow.delay = 0 }
        let results = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let actor = index == 0 ? f.anna.id : f.ben.id
            let result = Result { try body(actor) }
            results.withLock { $0.append((try? result.get()).map { "\($0)" } ?? "error") }
        }
        return results.withLock { $0 }
    }

    @Test func lastTwoShoppersLeavingTogetherEndTheTrip() throws {
        let f = try Fixture()
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: f.now)
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, now: f.now + 1)
        let results = Self.together(f) { actor in
            String(describing: try f.domain.endSession(week: f.week, householdID: f.anna.householdID, actor: actor, now: f.now + 2))
        }
        #expect(try f.store.contexts.context(key: f.key)?.state == .ended, "the second to leave saw the first gone: \(results)")
    }

    @Test func twoShoppersStartingTogetherAreBothShopping() throws {
        let f = try Fixture()
        _ = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Milch", price: nil, now: f.now)
        let results = Self.together(f) { actor in
            try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: actor, now: f.now + 2)
        }
        let shoppers = try f.store.database.read { transaction in
            try transaction.query("SELECT user_id FROM shopping_sessions WHERE ended_at IS NULL").map { UserID(try $0.int("user_id")) }
        }
        #expect(Set(shoppers) == [f.anna.id, f.ben.id], "both are shopping: \(results)")
        #expect(!results.contains("error"), "\(results)")
    }

    @Test func twoShoppersStartingTogetherOnAWeekWithoutACardAreBothShopping() throws {
        let f = try Fixture()
        let results = Self.together(f) { actor in
            try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: actor, now: f.now)
        }
        let shoppers = try f.store.database.read { transaction in
            try transaction.query("SELECT user_id FROM shopping_sessions WHERE ended_at IS NULL").map { UserID(try $0.int("user_id")) }
        }
        // The second made no new trip of its own, which would have closed the first one's session.
        #expect(Set(shoppers) == [f.anna.id, f.ben.id], "both are shopping: \(results)")
        #expect(results.filter { $0.contains("newTrip: true") }.count == 1, "\(results)")
    }

    @Test func aHeartbeatCommittingWhileTheSweepEndsLapsedSessionsKeepsItsSession() throws {
        let f = try Fixture()
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: f.now)
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, now: f.now)
        // Anna's heartbeat comes just in time and holds her row, uncommitted, while a sweep a
        // little later (another instance's) finds both sessions lapsed.
        let beatAt = f.now + f.domain.presenceTimeout - 1
        let later = f.now + f.domain.presenceTimeout + 5
        f.slow.delay = 0.4
        defer { f.slow.delay = 0 }
        let beat = Mutex<Bool?>(nil)
        let expired = Mutex<Int?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                beat.withLock { $0 = try? f.domain.heartbeat(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: beatAt) }
            } else if f.slow.waitForPausedWrite() {  // the heartbeat's update done, not committed
                expired.withLock { $0 = try? f.domain.expireSessions(now: later) }
            }
        }
        let shoppers = try f.store.database.read { transaction in
            try transaction.query("SELECT user_id FROM shopping_sessions WHERE ended_at IS NULL").map { UserID(try $0.int("user_id")) }
        }
        #expect(beat.withLock { $0 } == true)
        #expect(expired.withLock { $0 } == 1, "Ben's session lapsed, Anna's was kept alive")
        #expect(shoppers == [f.anna.id])
        #expect(try f.store.contexts.context(key: f.key)?.state == .active, "the trip goes on with Anna")
    }
}
