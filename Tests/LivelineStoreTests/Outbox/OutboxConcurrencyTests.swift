import Foundation
import Synchronization
import Testing
import LivelineStore

/// Several dispatchers claiming at once never get the same row, and every row is claimed.
struct OutboxConcurrencyTests {
    static let rowCount = 400

    /// Enqueues `rowCount` messages, one per idempotency key.
    static func fill(_ store: Store) throws -> Set<Int> {
        try store.write { transaction in
            for index in 0..<rowCount {
                try store.outbox.enqueueMessage(
                    idempotencyKey: "m:\(index)", contextKey: nil, target: .token(PushTokenID(index)), headers: nil, payload: [1],
                    now: time(0), in: transaction
                )
            }
        }
        return Set(try store.database.read { try $0.query("SELECT id FROM outbox") }.map { try $0.int("id") })
    }

    /// Claims with `workers` threads until nothing is left; returns every claimed id in claim order
    /// (duplicates kept) and the errors.
    static func claimAll(workers: Int, stores: [Store]) -> (ids: [Int], failures: [String]) {
        let claimed = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let store = stores[worker % stores.count]
            while true {
                do {
                    let rows = try store.outbox.claim(owner: "worker-\(worker)", now: time(1), lease: 60, limit: 7)
                    if rows.isEmpty { return }
                    claimed.withLock { $0.append(contentsOf: rows.map(\.id)) }
                    for row in rows where !(try store.outbox.complete(id: row.id, owner: "worker-\(worker)", now: time(1))) {
                        failures.withLock { $0.append("row \(row.id) was not held by worker-\(worker)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    return
                }
            }
        }
        return (claimed.withLock { $0 }, failures.withLock { $0 })
    }

    @Test(arguments: DatabaseFactory.all)
    func eightThreadsClaimEveryRowExactlyOnce(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ids = try Self.fill(store)
            #expect(ids.count == Self.rowCount)
            let (claimed, failures) = Self.claimAll(workers: 8, stores: [store])
            #expect(failures == [])
            #expect(claimed.count == Self.rowCount)
            #expect(Set(claimed) == ids)
            #expect(try store.outbox.depth(now: time(2)) == OutboxDepth(due: 0, leased: 0, dead: 0, oldestDueAge: nil))
        }
    }

    /// Two `SQLiteDatabase` objects on one file stand for two server processes.
    @Test func twoDatabasesOnOneFileClaimEveryRowExactlyOnce() throws {
        try TemporaryFolder.with { folder in
            let stores = [try Store.openSQLite(folder: folder), try Store.openSQLite(folder: folder)]
            let ids = try Self.fill(stores[0])
            let (claimed, failures) = Self.claimAll(workers: 4, stores: stores)
            #expect(failures == [])
            #expect(claimed.count == Self.rowCount)
            #expect(Set(claimed) == ids)
        }
    }

    /// Mutations and claims racing: every committed change is followed by a claimed row that was
    /// claimed after it (nothing is lost), whatever the interleaving.
    @Test(arguments: DatabaseFactory.all)
    func changesRacingWithClaimsAreNeverLost(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            let failures = Mutex<[String]>([])
            // For each claim: the revision visible right after claiming (the render reads at least it).
            let lastRenderedRev = Mutex(0)
            let writersDone = Atomic<Bool>(false)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                defer { writersDone.store(true, ordering: .releasing) }
                for second in 1...200 {
                    do { try store.change(at: second) } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
            DispatchQueue.global().async(group: group) {
                while true {
                    let finished = writersDone.load(ordering: .acquiring)
                    do {
                        for row in try store.outbox.claim(owner: "d", now: time(1000), lease: 60, limit: 10) {
                            let rev = try store.contexts.revision(key: "trip:1") ?? 0
                            lastRenderedRev.withLock { $0 = max($0, rev) }
                            try store.outbox.complete(id: row.id, owner: "d", now: time(1000))
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        return
                    }
                    // One more round after the writers finished picks up the last change.
                    if finished { return }
                }
            }
            group.wait()
            #expect(failures.withLock { $0 } == [])
            #expect(try store.outboxRows(status: .due).isEmpty)
            #expect(lastRenderedRev.withLock { $0 } == 200)
        }
    }
}

extension OutboxConcurrencyTests {
    /// Several instances on one PostgreSQL: while one dispatcher holds a live lease on a context's
    /// sync row, another does not take the context's next row; it does once the first is done
    /// (or its lease ran out). Other contexts go out meanwhile.
    @Test func aContextsSyncsGoOutFromOneDispatcherAtATime() throws {
        try DatabaseFactory.postgres.withStore { store in
            let other = Store(database: try DatabaseFactory.postgres.another(store.database))
            try store.makeContext("trip:1")
            try store.makeContext("trip:2")
            try store.change("trip:1", at: 1)
            let first = try store.outbox.claim(owner: "instance-a", now: time(10), lease: 30, limit: 10)
            #expect(first.map(\.contextKey) == ["trip:1"])
            // A change while it is being sent: a due row of its own, and one of another context.
            try store.change("trip:1", at: 11)
            try store.change("trip:2", at: 11)
            let meanwhile = try other.outbox.claim(owner: "instance-b", now: time(12), lease: 30, limit: 10)
            #expect(meanwhile.map(\.contextKey) == ["trip:2"], "trip:1 stays with instance-a while its lease lives")
            #expect(try store.outbox.complete(id: first[0].id, owner: "instance-a", now: time(13)))
            let after = try other.outbox.claim(owner: "instance-b", now: time(14), lease: 30, limit: 10)
            #expect(after.map(\.contextKey) == ["trip:1"])
        }
    }
}

extension OutboxConcurrencyTests {
    /// A backlog (after an APNs outage: tens of thousands of due contexts) costs a claim only the
    /// rows it takes: it locks a bounded candidate set, not one lock per due context (which filled
    /// PostgreSQL's lock table: "out of shared memory").
    @Test func aClaimOverAHugeBacklogLocksOnlyWhatItTakes() throws {
        try DatabaseFactory.postgres.withStore { store in
            try store.database.write { transaction in
                try transaction.execute(
                    """
                    INSERT INTO outbox (kind, context_key, status, due_at, created_at, updated_at)
                    SELECT 'sync', 'trip:backlog-' || n, 'due', 1000, 1000, 1000 FROM generate_series(1, 80000) AS n
                    """)
            }
            let claimed = try store.outbox.claim(owner: "d1", now: time(10), lease: 30, limit: 10)
            #expect(claimed.count == 10)
            #expect(Set(claimed.compactMap(\.contextKey)).count == 10)
        }
    }
}

extension OutboxConcurrencyTests {
    /// A row given back (a retry, a postpone) while another instance's change of the same context
    /// is committing: the give-back waits for that commit and marks the row done (the new due row
    /// sends the newer state) instead of failing on the one-due-row index.
    @Test func aRowGivenBackWhileAChangeOfItsContextCommitsIsSupersededNotRefused() throws {
        try DatabaseFactory.postgres.withStore { store in
            let other = Store(database: try DatabaseFactory.postgres.another(store.database))
            try store.makeContext("trip:1")
            try store.change("trip:1", at: 1)
            let claimed = try store.outbox.claim(owner: "a", now: time(10), lease: 30, limit: 10)
            #expect(claimed.count == 1)
            let inserted = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                _ = try? other.database.write { transaction in
                    _ = try other.contexts.recordChange(key: "trip:1", now: time(11), in: transaction)
                    inserted.signal()
                    Thread.sleep(forTimeInterval: 0.5)  // uncommitted meanwhile
                }
            }
            inserted.wait()
            let givenBack = Result { try store.outbox.retry(id: claimed[0].id, owner: "a", at: time(20), error: "503", now: time(12)) }
            group.wait()
            #expect((try? givenBack.get()) == true, "\(givenBack)")
            let rows = try store.outbox.rows(contextKey: "trip:1")
            #expect(rows.first { $0.id == claimed[0].id }?.status == .done, "superseded by the new due row")
            #expect(rows.filter { $0.status == .due }.count == 1)
        }
    }

    /// A token registered by another instance while a claim finds nobody following its context:
    /// the claim neither waits for the registration's hold on the context row nor marks the
    /// context quiet, so the next change is sent to the new token.
    @Test func aFollowerRegisteringWhileAClaimFindsNobodyGetsTheNextChange() throws {
        try DatabaseFactory.postgres.withStore { store in
            let other = Store(database: try DatabaseFactory.postgres.another(store.database))
            let ada = try store.makeUser("Ada")
            try store.makeContext("trip:1")
            try store.change("trip:1", at: 1)
            let registered = DispatchSemaphore(value: 0)
            let commit = DispatchSemaphore(value: 0)
            let timedOut = Mutex(false)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                _ = try? other.database.write { transaction in
                    let registration = TokenRegistration(
                        householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .production,
                        token: "t1", contextKey: "trip:1")
                    _ = try other.tokens.register(registration, now: time(2), in: transaction)
                    registered.signal()
                    if commit.wait(timeout: .now() + 10) == .timedOut { timedOut.withLock { $0 = true } }
                }
            }
            registered.wait()
            let claim = try store.outbox.claimForSending(owner: "d1", now: time(3), lease: 30, limit: 10)
            commit.signal()
            group.wait()
            #expect(!timedOut.withLock { $0 }, "the claim waited for the registration")
            #expect(claim.completed == 1, "the uncommitted token is not seen")
            try store.change("trip:1", at: 4)
            let next = try store.outbox.claimForSending(owner: "d1", now: time(5), lease: 30, limit: 10)
            #expect(next.rows.map(\.contextKey) == ["trip:1"])
        }
    }
}
