import Foundation
import Testing
@testable import LivelineStore

/// Coalescing, leases and outcomes of `docs/engine.md`, "The transactional outbox and the dispatcher".
struct OutboxRepositoryTests {
    @Test(arguments: DatabaseFactory.all)
    func aHundredChangesLeaveOneDueSyncRow(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            for second in 1...100 { try store.change(at: second) }
            let due = try store.outboxRows(status: .due)
            #expect(due.count == 1)
            #expect(due.first?.target == nil)
            #expect(due.first?.dueAt == time(1))
            #expect(due.first?.createdAt == time(1))
            #expect(try store.outbox.rows(contextKey: "trip:1").count == 1)
            #expect(try store.contexts.revision(key: "trip:1") == 100)
        }
    }

    /// The key correctness property: a change that commits while its context's push is in flight
    /// goes out too.
    @Test(arguments: DatabaseFactory.all)
    func aChangeCommittedWhileTheRowIsLeasedAddsANewDueRow(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let inFlight = try store.outbox.claim(owner: "d1", now: time(2), lease: 60, limit: 10)
            #expect(inFlight.count == 1)
            #expect(inFlight.first?.status == .leased)
            #expect(inFlight.first?.leaseOwner == "d1")
            #expect(inFlight.first?.leaseUntil == time(62))
            #expect(try store.outbox.claim(owner: "d2", now: time(2), lease: 60, limit: 10).isEmpty)

            try store.change(at: 3)
            let next = try store.outboxRows(status: .due)
            #expect(next.count == 1)
            #expect(next.first?.id != inFlight.first?.id)
            // The first push completes; the second row is still there and is claimed next.
            #expect(try store.outbox.complete(id: inFlight[0].id, owner: "d1", now: time(4)))
            let claimed = try store.outbox.claim(owner: "d2", now: time(4), lease: 60, limit: 10)
            #expect(claimed.map(\.id) == next.map(\.id))
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func claimTakesRowsWhoseTimeHasComeOldestFirstUpToTheLimit(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            for index in 1...3 { try store.makeContext("trip:\(index)") }
            try store.change("trip:3", at: 1)
            try store.change("trip:1", at: 2)
            try store.write { transaction in
                try store.outbox.enqueueSync(contextKey: "trip:2", target: .token(7), now: time(2), dueAt: time(50), in: transaction)
            }
            let first = try store.outbox.claim(owner: "d1", now: time(10), lease: 600, limit: 1)
            #expect(first.map(\.contextKey) == ["trip:3"])
            let rest = try store.outbox.claim(owner: "d1", now: time(10), lease: 600, limit: 10)
            #expect(rest.map(\.contextKey) == ["trip:1"])
            let later = try store.outbox.claim(owner: "d1", now: time(50), lease: 30, limit: 10)
            #expect(later.map(\.target) == [.token(7)])
            #expect(try store.outbox.claim(owner: "d1", now: time(50), lease: 30, limit: 0).isEmpty)
        }
    }

    /// A dispatcher's claim completes the fan-outs that would send nothing (an active context no
    /// active `la-update` token and no channel follows) in its own transaction; everything else
    /// is leased to it as by ``OutboxRepository/claim(owner:now:lease:limit:reclaiming:)``.
    @Test(arguments: DatabaseFactory.all)
    func aClaimForSendingCompletesTheFanOutsNobodyFollows(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            func updateToken(_ key: String, _ token: String) throws -> PushTokenID {
                let registration = TokenRegistration(
                    householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .production, token: token,
                    contextKey: key)
                try store.tokens.register(registration, now: time(1))
                return try #require(try store.tokens.activeTokens(userID: ada.id).first { $0.contextKey == key }?.id)
            }
            for key in ["alone", "token", "channel", "ended", "dead-token", "one-target"] { try store.makeContext(key) }
            _ = try updateToken("token", "t1")
            let dead = try updateToken("dead-token", "t2")
            #expect(try store.tokens.markInvalid(id: dead, reason: "Unregistered", now: time(1)))
            // An alert token of the same user (it has no context key) follows nothing.
            try store.tokens.register(.alert(ada, device: "phone", token: "a1"), now: time(1))
            try store.write { transaction in
                try store.channels.link(contextKey: "channel", environment: .production, channelID: "ch-1", in: transaction)
                try store.outbox.enqueueSync(contextKey: "one-target", target: .token(7), now: time(2), in: transaction)
            }
            for key in ["alone", "token", "channel", "dead-token"] { try store.change(key, at: 2) }
            try store.change("ended", at: 2)
            try store.end("ended", at: 2)

            let claim = try store.outbox.claimForSending(owner: "d1", now: time(3), lease: 60, limit: 10)
            #expect(Set(claim.rows.map(\.contextKey)) == ["token", "channel", "ended", "one-target"])
            #expect(claim.rows.allSatisfy { $0.status == .leased && $0.leaseOwner == "d1" })
            #expect(claim.completed == 2)
            for key in ["alone", "dead-token"] {
                let rows = try store.outbox.rows(contextKey: key)
                #expect(rows.map(\.status) == [.done], "\(key)")
                #expect(rows.first?.leaseUntil == nil)
            }
            // Nothing left to claim; a later change of a context the claim found nobody following
            // writes no sync row at all (its revision goes up).
            #expect(try store.outbox.claimForSending(owner: "d1", now: time(4), lease: 60, limit: 10).rows.isEmpty)
            let before = try #require(try store.contexts.context(key: "alone")).rev
            let quiet = try store.write { try store.contexts.recordedChange(key: "alone", now: time(5), in: $0) }
            #expect(quiet.rev == before + 1)
            #expect(!quiet.enqueuedSync)
            #expect(try store.outbox.rows(contextKey: "alone").map(\.status) == [.done])
            // A follower registered since: the next change's row is leased to be sent.
            _ = try updateToken("alone", "t3")
            #expect(try store.write { try store.contexts.recordedChange(key: "alone", now: time(6), in: $0) }.enqueuedSync)
            let next = try store.outbox.claimForSending(owner: "d1", now: time(7), lease: 60, limit: 10)
            #expect(next.rows.map(\.contextKey) == ["alone"])
            #expect(next.completed == 0)
        }
    }

    /// A claim's mark of a quiet context holds only at the follow epoch the claim saw: a follower
    /// that came between its read and its mark raised the epoch, and the mark is not made.
    @Test(arguments: DatabaseFactory.all)
    func aContextIsMarkedQuietOnlyAtTheEpochTheClaimSaw(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            try store.makeContext("quiet")
            func epochs() throws -> (follow: Int64, quiet: Int64?) {
                let row = try #require(try store.write { try $0.queryOne("SELECT follow_epoch, quiet_epoch FROM contexts WHERE key = 'quiet'") })
                return (try row.int64("follow_epoch"), try row.optionalInt64("quiet_epoch"))
            }
            let seen = try epochs().follow
            try store.tokens.register(
                TokenRegistration(
                    householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .production, token: "t1",
                    contextKey: "quiet"), now: time(1))
            #expect(try epochs().follow == seen + 1)
            try store.write { try store.outbox.markQuiet(seen: ["quiet": seen], in: $0) }
            #expect(try epochs().quiet == nil, "a stale epoch marks nothing")
            try store.change("quiet", at: 2)
            #expect(try store.outboxRows("quiet", status: .due).count == 1)
            try store.write { try store.outbox.markQuiet(seen: ["quiet": seen + 1], in: $0) }
            #expect(try epochs().quiet == seen + 1)
        }
    }

    /// Every way a context gains a follower brings its sync rows back after a claim found nobody:
    /// a channel linked, an `la-update` token registered, one made active again, one moved to it.
    @Test(arguments: DatabaseFactory.all)
    func aContextGainingAFollowerGetsSyncRowsAgain(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            try store.makeContext("quiet")
            try store.makeContext("other")
            var second = 10
            /// Completes the quiet context's pending row, then says whether its next change writes one.
            func nextChangeIsDue(after gaining: () throws -> Void) throws -> Bool {
                second += 10
                _ = try store.outbox.claimForSending(owner: "d1", now: time(second), lease: 60, limit: 10)
                try store.change("quiet", at: second + 1)
                #expect(try store.outboxRows("quiet", status: .due).isEmpty, "quiet before it gains a follower")
                try gaining()
                try store.change("quiet", at: second + 2)
                let due = try store.outboxRows("quiet", status: .due).count == 1
                // Nobody follows it again for the next round.
                try store.write { transaction in
                    try transaction.execute("UPDATE push_tokens SET status = 'deleted' WHERE context_key = 'quiet'", [])
                    try transaction.execute("DELETE FROM context_channels", [])
                }
                return due
            }
            try store.change("quiet", at: 1)
            #expect(!(try nextChangeIsDue {}), "quiet once claimed")
            #expect(
                try nextChangeIsDue {
                    try store.write { try store.channels.link(contextKey: "quiet", environment: .production, channelID: "ch-1", in: $0) }
                })
            #expect(
                try nextChangeIsDue {
                    try store.tokens.register(
                        TokenRegistration(
                            householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .production,
                            token: "t1", contextKey: "quiet"), now: time(1))
                })
            func sql(_ statement: String) -> () throws -> Void { { _ = try store.write { try $0.execute(statement, []) } } }
            #expect(try nextChangeIsDue(after: sql("UPDATE push_tokens SET status = 'active' WHERE token = 't1'")))
            try store.tokens.register(
                TokenRegistration(
                    householdID: ada.householdID, userID: ada.id, deviceID: "pad", kind: .update, environment: .production, token: "t2",
                    contextKey: "other"), now: time(2))
            #expect(try nextChangeIsDue(after: sql("UPDATE push_tokens SET context_key = 'quiet' WHERE token = 't2'")))
            // A write to a token that stays a follower does not count as a new one.
            try store.tokens.register(
                TokenRegistration(
                    householdID: ada.householdID, userID: ada.id, deviceID: "watch", kind: .update, environment: .production, token: "t3",
                    contextKey: "other"), now: time(3))
            func followEpoch() throws -> Int64 {
                try store.write { try #require(try $0.queryOne("SELECT follow_epoch FROM contexts WHERE key = 'other'")).int64("follow_epoch") }
            }
            let before = try followEpoch()
            try store.write { try $0.execute("UPDATE push_tokens SET suspect_at = 1, last_registered_at = 5 WHERE token = 't3'", []) }
            #expect(try followEpoch() == before)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aFreshChangeIsNotHeldBackByARetrysBackoff(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let row = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 60, limit: 1).first)
            #expect(try store.outbox.retry(id: row.id, owner: "d1", at: time(100), error: "503 ServiceUnavailable", now: time(2)))
            #expect(try store.outboxRows(status: .due).map(\.dueAt) == [time(100)])
            try store.change(at: 5)
            let due = try store.outboxRows(status: .due)
            #expect(due.map(\.id) == [row.id])
            #expect(due.map(\.dueAt) == [time(5)])
            #expect(due.map(\.attempts) == [1])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func outcomesNeedTheLeaseOfTheirOwner(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            for index in 1...3 {
                try store.makeContext("trip:\(index)")
                try store.change("trip:\(index)", at: index)
            }
            let rows = try store.outbox.claim(owner: "d1", now: time(10), lease: 60, limit: 10)
            #expect(rows.count == 3)
            let (done, retried, dead) = (rows[0].id, rows[1].id, rows[2].id)
            #expect(try !store.outbox.complete(id: done, owner: "d2", now: time(11)))
            #expect(try !store.outbox.retry(id: retried, owner: "d2", at: time(20), error: "x", now: time(11)))
            #expect(try !store.outbox.deadLetter(id: dead, owner: "d2", reason: "x", now: time(11)))
            #expect(try store.outbox.row(id: done)?.status == .leased)

            #expect(try store.outbox.complete(id: done, owner: "d1", now: time(11)))
            #expect(try store.outbox.retry(id: retried, owner: "d1", at: time(20), error: "429 TooManyRequests", now: time(11)))
            #expect(try store.outbox.deadLetter(id: dead, owner: "d1", reason: "PayloadTooLarge", now: time(11)))
            // Each only once.
            #expect(try !store.outbox.complete(id: done, owner: "d1", now: time(12)))
            #expect(try !store.outbox.complete(id: dead, owner: "d1", now: time(12)))
            #expect(try !store.outbox.complete(id: retried, owner: "d1", now: time(12)))

            #expect(try store.outbox.row(id: done)?.status == .done)
            let retry = try #require(try store.outbox.row(id: retried))
            #expect(retry.status == .due)
            #expect(retry.attempts == 1)
            #expect(retry.dueAt == time(20))
            #expect(retry.lastError == "429 TooManyRequests")
            #expect(retry.leaseUntil == nil)
            let letter = try #require(try store.outbox.row(id: dead))
            #expect(letter.status == .dead)
            #expect(letter.lastError == "PayloadTooLarge")
            #expect(try store.outbox.deadLetters().map(\.id) == [dead])
            #expect(try store.outbox.deadLetters(contextKey: "trip:3").map(\.id) == [dead])
            #expect(try store.outbox.deadLetters(contextKey: "trip:1").isEmpty)
            // A dead sync row does not block the context: the next change is a new due row.
            try store.change("trip:3", at: 12)
            #expect(try store.outboxRows("trip:3", status: .due).count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aRetryOfASyncRowIsSupersededByADueRowForTheSameTarget(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let row = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 60, limit: 1).first)
            try store.change(at: 2)
            #expect(try store.outbox.retry(id: row.id, owner: "d1", at: time(30), error: "500", now: time(3)))
            #expect(try store.outbox.row(id: row.id)?.status == .done)
            #expect(try store.outboxRows(status: .due).count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func anExpiredLeaseIsTakenBackByTheNextClaim(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let row = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 30, limit: 1).first)
            // Not before the lease runs out.
            #expect(try store.outbox.claim(owner: "d2", now: time(31), lease: 30, limit: 1).isEmpty)
            let again = try store.outbox.claim(owner: "d2", now: time(32), lease: 30, limit: 1)
            #expect(again.map(\.id) == [row.id])
            #expect(again.first?.leaseOwner == "d2")
            #expect(again.first?.attempts == 1)
            #expect(again.first?.lastError == "lease of d1 expired")
            // The dispatcher that lost it cannot complete it any more.
            #expect(try !store.outbox.complete(id: row.id, owner: "d1", now: time(33)))
            #expect(try store.outbox.complete(id: row.id, owner: "d2", now: time(33)))
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func anExpiredLeaseIsSupersededByADueRowOfTheSameContextAndTarget(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let first = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 30, limit: 1).first)
            try store.change(at: 2)
            let second = try #require(try store.outbox.claim(owner: "d1", now: time(2), lease: 30, limit: 1).first)
            try store.change(at: 3)
            let third = try #require(try store.outboxRows(status: .due).first)
            // d1 died with two rows in flight and one due: the due row carries the newest state.
            let claimed = try store.outbox.claim(owner: "d2", now: time(40), lease: 30, limit: 10)
            #expect(claimed.map(\.id) == [third.id])
            for id in [first.id, second.id] {
                let row = try #require(try store.outbox.row(id: id))
                #expect(row.status == .done)
                #expect(row.lastError == "lease of d1 expired; superseded by a newer due row")
            }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func twoExpiredLeasesOfOneContextComeBackAsOneDueRow(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let first = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 30, limit: 1).first)
            try store.change(at: 2)
            let second = try #require(try store.outbox.claim(owner: "d1", now: time(2), lease: 30, limit: 1).first)
            let claimed = try store.outbox.claim(owner: "d2", now: time(40), lease: 30, limit: 10)
            #expect(claimed.map(\.id) == [second.id])
            #expect(try store.outbox.row(id: first.id)?.status == .done)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aMessageIsEnqueuedOncePerIdempotencyKey(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
            let headers = #"{"apns-push-type":"liveactivity"}"#
            func enqueue(_ key: String, at seconds: Int) throws -> Bool {
                try store.write { transaction in
                    try store.outbox.enqueueMessage(
                        idempotencyKey: key, contextKey: "trip:1", target: .token(3), headers: headers, payload: payload,
                        now: time(seconds), in: transaction
                    )
                }
            }
            #expect(try enqueue("start:trip:1:3", at: 1))
            #expect(try !enqueue("start:trip:1:3", at: 2))
            #expect(try enqueue("start:trip:1:4", at: 2))
            let rows = try store.outboxRows(kind: .message, status: .due)
            #expect(rows.count == 2)
            let row = try #require(rows.first)
            #expect(row.idempotencyKey == "start:trip:1:3")
            #expect(row.payload == payload)
            #expect(row.headers == headers)
            #expect(row.target == .token(3))
            #expect(row.createdAt == time(1))
            // Still refused once sent.
            let claimed = try store.outbox.claim(owner: "d1", now: time(3), lease: 30, limit: 10)
            for message in claimed { try store.outbox.complete(id: message.id, owner: "d1", now: time(3)) }
            #expect(try !enqueue("start:trip:1:3", at: 4))
            // Messages are never coalesced, and need no context.
            #expect(
                try store.write { transaction in
                    try store.outbox.enqueueMessage(
                        idempotencyKey: "notify:x:1", contextKey: nil, target: nil, headers: nil, payload: [], now: time(5), in: transaction
                    )
                })
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func depthCountsRowsAndTheAgeOfTheOldestReadyRow(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            #expect(try store.outbox.depth(now: time(0)) == OutboxDepth(due: 0, leased: 0, dead: 0, oldestDueAge: nil))
            for index in 1...4 { try store.makeContext("trip:\(index)") }
            try store.change("trip:1", at: 10)
            try store.change("trip:2", at: 20)
            try store.write { transaction in
                try store.outbox.enqueueSync(contextKey: "trip:3", target: .channel("Y2g="), now: time(5), dueAt: time(100), in: transaction)
            }
            try store.change("trip:4", at: 1)
            let leased = try store.outbox.claim(owner: "d1", now: time(1), lease: 600, limit: 1)
            #expect(leased.map(\.contextKey) == ["trip:4"])
            #expect(try store.outbox.depth(now: time(25)) == OutboxDepth(due: 3, leased: 1, dead: 0, oldestDueAge: 15))
            #expect(try store.outbox.deadLetter(id: leased[0].id, owner: "d1", reason: "BadTopic", now: time(26)))
            #expect(try store.outbox.depth(now: time(26)).dead == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func doneRowsArePurgedAfterTheirTime(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let row = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 30, limit: 1).first)
            try store.outbox.complete(id: row.id, owner: "d1", now: time(2))
            try store.change(at: 3)
            #expect(try store.outbox.purgeDone(before: time(2)) == 0)
            #expect(try store.outbox.purgeDone(before: time(10)) == 1)
            #expect(try store.outbox.rows(contextKey: "trip:1").map(\.status) == [.due])
        }
    }

    @Test func targetsRoundTripThroughTheirStoredForm() {
        #expect(OutboxTarget.token(42).rawValue == "token:42")
        #expect(OutboxTarget(rawValue: "token:42") == .token(42))
        #expect(OutboxTarget(rawValue: "channel:abc=") == .channel("abc="))
        #expect(OutboxTarget(rawValue: "token:x") == nil)
        #expect(OutboxTarget(rawValue: "channel:") == nil)
        #expect(OutboxTarget(rawValue: "device:1") == nil)
    }
}
