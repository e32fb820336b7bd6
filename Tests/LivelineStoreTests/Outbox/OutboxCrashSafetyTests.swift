import Foundation
import Testing
import LivelineStore

/// A committed change always leaves a due (or leased) sync row until a dispatcher completes one
/// claimed after it, across a restart too (`docs/engine.md`: "A crash after commit loses nothing; a
/// crash before commit changes nothing"). A real SIGKILL test belongs to the end-to-end suite.
struct OutboxCrashSafetyTests {
    @Test func aCommittedChangeIsStillDueAfterReopeningTheFile() throws {
        try TemporaryFolder.with { folder in
            do {
                let store = try Store.openSQLite(folder: folder)
                try store.makeContext()
                try store.change(at: 1)
                // The process "dies" before any dispatcher ran.
            }
            let reopened = try Store.openSQLite(folder: folder)
            let claimed = try reopened.outbox.claim(owner: "after-restart", now: time(2), lease: 30, limit: 10)
            #expect(claimed.map(\.contextKey) == ["trip:1"])
            #expect(try reopened.contexts.revision(key: "trip:1") == 1)
        }
    }

    @Test func aRowInFlightWhenTheProcessDiedComesBackAfterItsLease() throws {
        try TemporaryFolder.with { folder in
            let inFlight: OutboxRow
            do {
                let store = try Store.openSQLite(folder: folder)
                try store.makeContext()
                try store.change(at: 1)
                inFlight = try #require(try store.outbox.claim(owner: "before-crash", now: time(1), lease: 30, limit: 10).first)
                // The push may or may not have left; the process dies before completing the row.
            }
            let reopened = try Store.openSQLite(folder: folder)
            #expect(try reopened.outbox.claim(owner: "after-restart", now: time(20), lease: 30, limit: 10).isEmpty)
            #expect(try reopened.outbox.depth(now: time(20)).leased == 1)
            let claimed = try reopened.outbox.claim(owner: "after-restart", now: time(32), lease: 30, limit: 10)
            #expect(claimed.map(\.id) == [inFlight.id])
        }
    }

    @Test func expiringEveryLeaseGivesARowInFlightBackAtTheNextClaim() throws {
        try TemporaryFolder.with { folder in
            let store = try Store.openSQLite(folder: folder)
            try store.makeContext()
            try store.change(at: 1)
            let inFlight = try #require(try store.outbox.claim(owner: "backed-up", now: time(1), lease: 3_600, limit: 10).first)
            #expect(try store.outbox.claim(owner: "restored", now: time(2), lease: 30, limit: 10).isEmpty, "leased for an hour")
            #expect(try store.outbox.expireAllLeases() == 1)
            #expect(try store.outbox.expireAllLeases() == 1, "still leased until a claim takes it back")
            let claimed = try store.outbox.claim(owner: "restored", now: time(2), lease: 30, limit: 10)
            #expect(claimed.map(\.id) == [inFlight.id])
        }
    }

    @Test func aTransactionThatNeverCommittedLeavesNothing() throws {
        try TemporaryFolder.with { folder in
            struct Crash: Error {}
            do {
                let store = try Store.openSQLite(folder: folder)
                try store.makeContext()
                #expect(throws: Crash.self) {
                    try store.write { transaction in
                        try store.contexts.recordChange(key: "trip:1", now: time(1), in: transaction)
                        throw Crash()
                    }
                }
            }
            let reopened = try Store.openSQLite(folder: folder)
            #expect(try reopened.contexts.revision(key: "trip:1") == 0)
            #expect(try reopened.outbox.rows(contextKey: "trip:1").isEmpty)
        }
    }
}
