import Foundation
import Testing
import LivelineStore

/// The rules of `docs/engine.md`, "Contexts, revisions, snapshots" and "Lifecycle", on every backend.
struct ContextRepositoryTests {
    struct DomainFailure: Error {}

    @Test(arguments: DatabaseFactory.all)
    func aCreatedContextStartsAtRevisionZeroWithAnEightHourDeadline(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let created = try store.makeContext("trip:1", at: 10)
            #expect(created.rev == 0)
            #expect(created.state == .active)
            #expect(created.householdID == nil)
            #expect(created.attributes == #"{"line":"5"}"#)
            #expect(created.startedAt == time(10))
            #expect(created.deadlineAt == time(10 + 8 * 3600))
            #expect(created.lastPushTimestamp == 0)
            #expect(try store.contexts.context(key: "trip:1") == created)
            #expect(try store.contexts.revision(key: "trip:1") == 0)
            #expect(try store.outbox.rows(contextKey: "trip:1").isEmpty)
            #expect(try store.contexts.context(key: "trip:2") == nil)
            #expect { try store.makeContext("trip:1") } throws: { ($0 as? StoreError)?.code == .alreadyExists }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aHeldPushMakesLaterChangesDueThenAndCoalesceIntoOneRow(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.write { try store.contexts.holdNextPush(key: "trip:1", until: time(5), in: $0) }
            #expect(try store.change(at: 1) == 1)
            #expect(try store.change(at: 2) == 2)
            let rows = try store.outbox.rows(contextKey: "trip:1")
            #expect(rows.count == 1 && rows.first?.dueAt == time(5))
            #expect(try store.outbox.claim(owner: "d", now: time(4), lease: 30, limit: 10).isEmpty, "held back until 5")
            #expect(try store.outbox.claim(owner: "d", now: time(5), lease: 30, limit: 10).count == 1)
            // Once the hold has passed, a change is due at once.
            #expect(try store.change(at: 9) == 3)
            #expect(try store.outbox.rows(contextKey: "trip:1").filter { $0.status == .due }.map(\.dueAt) == [time(9)])
            #expect { try store.write { try store.contexts.holdNextPush(key: "nope", until: time(1), in: $0) } } throws: {
                ($0 as? StoreError)?.code == .notFound
            }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func everyRecordedChangeRaisesTheRevisionByOneAndWritesItsRevisionRow(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            #expect(try store.change(at: 1, note: "first") == 1)
            #expect(try store.change(at: 2) == 2)
            // Two changes in one transaction are two revisions (and still one due sync row).
            let both = try store.write { transaction in
                [
                    try store.contexts.recordChange(key: "trip:1", now: time(3), in: transaction),
                    try store.contexts.recordChange(key: "trip:1", now: time(3), in: transaction),
                ]
            }
            #expect(both == [3, 4])
            #expect(try store.contexts.revision(key: "trip:1") == 4)
            let revisions = try store.contexts.revisions(key: "trip:1")
            #expect(revisions.map(\.rev) == [4, 3, 2, 1])
            #expect(revisions.last == ContextRevision(contextKey: "trip:1", rev: 1, changedAt: time(1), note: "first"))
            #expect(try store.outboxRows(status: .due).count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aGivenStateIsStoredWithItsChangeAndItsHintsAtTheNewRevision(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let before = try store.database.changeVersion()
            let given = GivenState(
                activityType: "TransitActivityAttributes", attributes: #"{"line":"6"}"#, contentState: #"{"eta":3}"#, relevanceScore: 0.5,
                alert: #"{"title":"x"}"#, priority: 10)
            func record(_ given: GivenState, key: String = "trip:1", at seconds: Int, note: String? = nil) throws -> RecordedChange? {
                try store.write { try store.contexts.recordGivenState(given, key: key, now: time(seconds), note: note, in: $0) }
            }
            #expect(try record(given, at: 2, note: "updated") == RecordedChange(rev: 2, activityType: "TransitActivityAttributes", householdID: nil))
            #expect(try store.database.changeVersion() != before, "the caches of other transactions learn of it")
            var context = try #require(try store.contexts.context(key: "trip:1"))
            #expect(context.attributes == given.attributes && context.contentState == given.contentState && context.relevanceScore == 0.5)
            #expect(context.alert == given.alert && context.priorityHint == 10 && context.hintRev == 2)
            // Without hints, the pending ones stay at their revision; the relevance score goes.
            let plain = GivenState(activityType: "TransitActivityAttributes", attributes: "{}", contentState: #"{"eta":4}"#, relevanceScore: nil)
            #expect(try record(plain, at: 3)?.rev == 3)
            context = try #require(try store.contexts.context(key: "trip:1"))
            #expect(context.contentState == plain.contentState && context.relevanceScore == nil)
            #expect(context.alert == given.alert && context.priorityHint == 10 && context.hintRev == 2)
            #expect(try store.contexts.revisions(key: "trip:1").map(\.rev) == [3, 2, 1])
            #expect(try store.contexts.revisions(key: "trip:1").first { $0.rev == 2 }?.note == "updated")
            #expect(try store.outboxRows(status: .due).count == 1)
            // Nothing for an unknown key, another type, an ended context or a household's.
            var other = plain
            other.activityType = "ShoppingActivityAttributes"
            #expect(try record(plain, key: "nope", at: 4) == nil)
            #expect(try record(other, at: 4) == nil)
            try store.end(at: 5)
            #expect(try record(plain, at: 6) == nil)
            let user = try store.makeUser("Ana")
            try store.write { transaction in
                _ = try store.contexts.create(
                    key: "shopping:1", activityType: "TransitActivityAttributes", householdID: user.householdID, attributes: "{}",
                    contentState: nil, now: time(6), in: transaction)
            }
            #expect(try record(plain, key: "shopping:1", at: 7) == nil)
            #expect(try store.contexts.revision(key: "trip:1") == 4 && store.contexts.revision(key: "shopping:1") == 0, "nothing changed")
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aDomainWriteThatThrowsRollsTheRevisionAndTheSyncRowBack(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            let due = try store.outboxRows(status: .due)
            _ = try store.outbox.claim(owner: "d1", now: time(1), lease: 60, limit: 10)
            #expect(throws: DomainFailure.self) {
                try store.write { transaction in
                    // The domain's own row, then the change, then the domain fails.
                    try transaction.execute("INSERT INTO households (name, locale, created_at) VALUES ('Doomed', 'de', 0)")
                    try store.contexts.recordChange(key: "trip:1", now: time(2), in: transaction)
                    throw DomainFailure()
                }
            }
            #expect(try store.contexts.revision(key: "trip:1") == 1)
            #expect(try store.contexts.revisions(key: "trip:1").map(\.rev) == [1])
            #expect(try store.outboxRows(status: .due).isEmpty)
            #expect(try store.outboxRows(status: .leased).map(\.id) == due.map(\.id))
            #expect(try store.database.read { try $0.query("SELECT id FROM households WHERE name = 'Doomed'") }.isEmpty)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func recordingAChangeOfAnUnknownContextFails(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            #expect { try store.change("nope", at: 1) } throws: { ($0 as? StoreError)?.code == .notFound }
            let rows = try store.outbox.rows(contextKey: "nope")
            #expect(rows.isEmpty)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func sinceRevAnswersUnchangedOnlyForTheCurrentRevision(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            try store.change(at: 2)
            #expect(
                try store.contexts.snapshotRead(key: "trip:1", sinceRev: 2)
                    == .unchanged(key: "trip:1", activityType: "TransitActivityAttributes", state: .active, rev: 2))
            let current = try #require(try store.contexts.context(key: "trip:1"))
            #expect(try store.contexts.snapshotRead(key: "trip:1", sinceRev: 1) == .changed(current))
            #expect(try store.contexts.snapshotRead(key: "trip:1", sinceRev: nil) == .changed(current))
            // A client ahead of the server (another database) gets the truth too.
            #expect(try store.contexts.snapshotRead(key: "trip:1", sinceRev: 9)?.rev == 2)
            #expect(try store.contexts.snapshotRead(key: "trip:9", sinceRev: 0) == nil)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func pushTimestampsStrictlyIncreaseEvenWithinOneSecond(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.makeContext("trip:2")
            let base = Int(time(100).timeIntervalSince1970)
            func next(_ date: Date, key: String = "trip:1") throws -> Int {
                try store.database.write { try store.contexts.nextPushTimestamp(key: key, now: date, in: $0) }
            }
            let sameSecond = try (0..<3).map { _ in try next(time(100).addingTimeInterval(0.4)) }
            #expect(sameSecond == [base, base + 1, base + 2])
            // A clock behind the last timestamp (or going back) still moves it forward by one.
            #expect(try next(time(90)) == base + 3)
            // Real time overtaking it is used as is.
            #expect(try next(time(200)) == base + 100)
            // Per context.
            #expect(try next(time(100), key: "trip:2") == base)
            #expect(try store.contexts.context(key: "trip:1")?.lastPushTimestamp == base + 100)
            #expect { try next(time(1), key: "trip:9") } throws: { ($0 as? StoreError)?.code == .notFound }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func endingSendsAFinalSyncOnceAndLaterChangesAreNotPushed(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1)
            _ = try store.outbox.claim(owner: "d1", now: time(1), lease: 60, limit: 10)
            let ended = try store.end("trip:1", at: 2)
            #expect(ended == ContextEndResult(rev: 2, alreadyEnded: false))
            let record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.state == .ended)
            #expect(record.endedAt == time(2))
            #expect(try store.contexts.revisions(key: "trip:1").first?.note == "ended")
            let final = try store.outboxRows(status: .due)
            #expect(final.count == 1)

            #expect(try store.end("trip:1", at: 3) == ContextEndResult(rev: 2, alreadyEnded: true))
            #expect(try store.contexts.context(key: "trip:1")?.endedAt == time(2))

            // The final sync goes out; a later change raises rev for pull-reconcile but pushes nothing.
            let claimed = try store.outbox.claim(owner: "d1", now: time(4), lease: 60, limit: 10)
            #expect(claimed.map(\.id) == final.map(\.id))
            #expect(try store.outbox.complete(id: final[0].id, owner: "d1", now: time(4)))
            #expect(try store.change(at: 5) == 3)
            #expect(try store.outboxRows(status: .due).isEmpty)
            #expect(try store.contexts.contexts(state: .ended).map(\.key) == ["trip:1"])
            #expect(try store.contexts.contexts(state: .active).isEmpty)
            #expect { try store.end("trip:9", at: 6) } throws: { ($0 as? StoreError)?.code == .notFound }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aPutCreatesAtRevisionOneThenUpdatesTheContentState(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let created = try store.put(state: #"{"phase":"boarding"}"#, relevanceScore: 50, at: 1)
            #expect(created == ContextUpsertResult(rev: 1, created: true))
            let updated = try store.put(state: #"{"phase":"riding"}"#, at: 2)
            #expect(updated == ContextUpsertResult(rev: 2, created: false))
            let record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.contentState == #"{"phase":"riding"}"#)
            #expect(record.relevanceScore == nil)
            #expect(record.startedAt == time(1))
            #expect(try store.contexts.revisions(key: "trip:1").map(\.note) == ["updated", "created"])
            #expect(try store.outboxRows(status: .due).count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func hintsStayUntilAPushRenderedAtTheirRevisionCarriedThem(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.put(type: "T", at: 1)
            try store.put(type: "T", alert: #"{"title":"Delay"}"#, priority: 10, at: 2)
            // A later update without hints keeps the pending ones.
            try store.put(type: "T", at: 3)
            var record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.alert == #"{"title":"Delay"}"#)
            #expect(record.priorityHint == 10)
            #expect(record.hintRev == 2)
            #expect(try !store.database.write { try store.contexts.clearHints(key: "trip:1", sentRev: 1, in: $0) })
            #expect(try store.database.write { try store.contexts.clearHints(key: "trip:1", sentRev: 3, in: $0) })
            record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.alert == nil)
            #expect(record.priorityHint == nil)
            #expect(record.hintRev == nil)
        }
    }

    /// An alert that went out is cleared by the push's record even when a later change, before the
    /// record, set a priority hint (which moves the hints' revision); that hint stays. An alert
    /// the push did not carry stays.
    @Test(arguments: DatabaseFactory.all)
    func theAlertAPushCarriedIsClearedThoughALaterPriorityHintMovedTheHintsRevision(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.put(type: "T", alert: #"{"title":"Delay"}"#, at: 1)
            try store.put(type: "T", priority: 5, at: 2)  // while rev 1's push is in flight
            var record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.alert == #"{"title":"Delay"}"# && record.priorityHint == 5 && record.hintRev == 2)
            // Without the alert it carried, rev 1's record clears nothing (as before).
            #expect(try !store.database.write { try store.contexts.clearHints(key: "trip:1", sentRev: 1, in: $0) })
            #expect(
                try store.database.write {
                    try store.contexts.clearHints(key: "trip:1", sentRev: 1, sentAlert: #"{"title":"Delay"}"#, in: $0)
                })
            record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.alert == nil, "the alert went with rev 1")
            #expect(record.priorityHint == 5 && record.hintRev == 2, "rev 2's hint is for the next push")

            #expect(try store.database.write { try store.contexts.clearHints(key: "trip:1", sentRev: 2, in: $0) })
            record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.alert == nil && record.priorityHint == nil && record.hintRev == nil)

            // Another alert set since the push was rendered is not the one that went: it stays.
            try store.put(type: "T", alert: #"{"title":"Later"}"#, at: 3)  // rendered, in flight
            try store.put(type: "T", alert: #"{"title":"Again"}"#, at: 4)
            #expect(
                try store.database.write {
                    try store.contexts.clearHints(key: "trip:1", sentRev: 3, sentAlert: #"{"title":"Later"}"#, in: $0)
                } == false)
            #expect(try store.contexts.context(key: "trip:1")?.alert == #"{"title":"Again"}"#)
            #expect(try store.database.write { try store.contexts.clearHints(key: "trip:1", sentRev: 4, in: $0) })

            // The same alert set again while it was in flight counts as gone, and leaves no hint.
            try store.put(type: "T", alert: #"{"title":"Same"}"#, at: 5)  // rendered, in flight
            try store.put(type: "T", alert: #"{"title":"Same"}"#, at: 6)
            #expect(
                try store.database.write {
                    try store.contexts.clearHints(key: "trip:1", sentRev: 5, sentAlert: #"{"title":"Same"}"#, in: $0)
                })
            record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(record.alert == nil && record.priorityHint == nil && record.hintRev == nil)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func channelAndRelevanceScoreChangeWithoutARevision(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.write { try store.channels.link(contextKey: "trip:1", environment: .sandbox, channelID: "dHJpcA==", in: $0) }
            try store.write { try store.channels.link(contextKey: "trip:1", environment: .production, channelID: "cHJvZA==", in: $0) }
            try store.write { try store.contexts.setRelevanceScore(key: "trip:1", 0.5, now: time(1), in: $0) }
            let record = try #require(try store.contexts.context(key: "trip:1"))
            #expect(try store.channels.contextChannel(key: "trip:1", environment: .sandbox) == "dHJpcA==")
            #expect(
                try store.database.read { try store.channels.contextChannels(key: "trip:1", in: $0) } == [
                    .sandbox: "dHJpcA==", .production: "cHJvZA==",
                ])
            #expect(
                try store.database.read { try store.channels.linkedContext(channelID: "cHJvZA==", in: $0) }.map { "\($0.key) \($0.environment)" }
                    == "trip:1 production")
            #expect(record.relevanceScore == 0.5)
            #expect(record.rev == 0)
            #expect(try store.outbox.rows(contextKey: "trip:1").isEmpty)
            // A new channel in one environment replaces the old link there; unlinking is by channel.
            try store.write { try store.channels.link(contextKey: "trip:1", environment: .sandbox, channelID: "bmV3", in: $0) }
            #expect(try store.channels.contextChannel(key: "trip:1", environment: .sandbox) == "bmV3")
            #expect(try store.write { try store.channels.unlink(channelID: "cHJvZA==", in: $0) })
            #expect(try store.write { try store.channels.unlink(channelID: "cHJvZA==", in: $0) } == false)
            #expect(try store.channels.contextChannel(key: "trip:1", environment: .production) == nil)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func contextsPastTheirDeadlineAreListedForTheLifecycle(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext("trip:1", at: 0)
            try store.makeContext("trip:2", at: 60)
            try store.makeContext("trip:3", at: 0)
            try store.end("trip:3", at: 10)
            let hours8 = 8 * 3600
            #expect(try store.contexts.contextsPastDeadline(now: time(hours8 - 1)).isEmpty)
            #expect(try store.contexts.contextsPastDeadline(now: time(hours8)).map(\.key) == ["trip:1"])
            #expect(try store.contexts.contextsPastDeadline(now: time(hours8 + 60)).map(\.key) == ["trip:1", "trip:2"])
            #expect(try store.contexts.contexts().map(\.key) == ["trip:1", "trip:2", "trip:3"])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func theTimelineMergesRevisionsAttemptsAndDeadLettersNewestFirst(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext()
            try store.change(at: 1, note: "first")
            let row = try #require(try store.outbox.claim(owner: "d1", now: time(1), lease: 60, limit: 1).first)
            let attempt = DeliveryAttempt(
                outboxID: row.id, contextKey: "trip:1", rev: 1, targetKind: .token, target: "7", apnsID: "A-1",
                status: 200, reason: nil, priority: 10, latencyMilliseconds: 12.5, attemptedAt: time(2)
            )
            let firstID = try store.deliveries.record(attempt)
            #expect(try store.outbox.complete(id: row.id, owner: "d1", now: time(2)))
            try store.change(at: 3, note: "second")
            let second = try #require(try store.outbox.claim(owner: "d1", now: time(3), lease: 60, limit: 1).first)
            var tooLarge = attempt
            tooLarge.outboxID = second.id
            tooLarge.rev = 2
            tooLarge.status = 413
            tooLarge.reason = "PayloadTooLarge"
            tooLarge.attemptedAt = time(3)
            tooLarge.note = "dead letter: PayloadTooLarge"
            let secondID = try store.deliveries.record(tooLarge)
            #expect(try store.outbox.deadLetter(id: second.id, owner: "d1", reason: "PayloadTooLarge", now: time(4)))
            // Another context's history stays out.
            try store.makeContext("trip:2")
            try store.change("trip:2", at: 5)

            let timeline = try store.contexts.timeline(key: "trip:1")
            #expect(timeline.count == 5)
            guard case .deadLetter(let dead) = timeline[0] else { Issue.record("\(timeline[0])"); return }
            #expect(dead.id == second.id)
            #expect(dead.lastError == "PayloadTooLarge")
            guard case .delivery(let latest) = timeline[1] else { Issue.record("\(timeline[1])"); return }
            #expect(latest.id == secondID)
            #expect(timeline[2] == .revision(ContextRevision(contextKey: "trip:1", rev: 2, changedAt: time(3), note: "second")))
            guard case .delivery(let first) = timeline[3] else { Issue.record("\(timeline[3])"); return }
            #expect(first.id == firstID)
            #expect(first.apnsID == "A-1")
            #expect(timeline[4] == .revision(ContextRevision(contextKey: "trip:1", rev: 1, changedAt: time(1), note: "first")))
            #expect(timeline.map(\.date) == [time(4), time(3), time(3), time(2), time(1)])
            #expect(try store.contexts.timeline(key: "trip:1", limit: 2).count == 2)
        }
    }
}

/// The revision cache answers from memory while nothing committed, and reads again after any commit.
struct RevisionCacheTests {
    @Test(arguments: DatabaseFactory.all)
    func aCachedRevisionIsReadAgainAfterEveryCommittedChange(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            try store.makeContext("trip:1", at: 10)
            var reads = 0
            func revision() throws -> Int? {
                try store.revisions.revision(key: "trip:1") {
                    reads += 1
                    return try store.contexts.revision(key: "trip:1")
                }
            }
            #expect(try revision() == 0 && reads == 1)
            #expect(try revision() == 0 && reads == 1, "nothing committed: no read")
            // A domain change through Store.write (one transaction, then the outbox is notified).
            try store.write { transaction in _ = try store.contexts.recordChange(key: "trip:1", now: time(20), note: "x", in: transaction) }
            #expect(try revision() == 1 && reads == 2)
            // The repository's own writes notify as well.
            try store.end("trip:1", at: 30)
            #expect(try revision() == 2 && reads == 3)
            // An unknown context is not cached (it may be created any time).
            #expect(try store.revisions.revision(key: "trip:none") { try store.contexts.revision(key: "trip:none") } == nil)
        }
    }

    @Test func aCommitByAnotherProcessOnTheSameSQLiteFileIsSeen() throws {
        try TemporaryFolder.with { folder in
            // Two stores on one file: to SQLite, two processes sharing the database.
            let ours = try Store.openSQLite(folder: folder)
            let theirs = try Store.openSQLite(folder: folder)
            try ours.makeContext("trip:1", at: 10)
            var reads = 0
            func revision() throws -> Int? {
                try ours.revisions.revision(key: "trip:1") {
                    reads += 1
                    return try ours.contexts.revision(key: "trip:1")
                }
            }
            #expect(try revision() == 0 && reads == 1)
            #expect(try revision() == 0 && reads == 1)
            try theirs.write { transaction in _ = try theirs.contexts.recordChange(key: "trip:1", now: time(20), note: "x", in: transaction) }
            #expect(try revision() == 1 && reads == 2, "the other writer's commit is noticed")
            // A write that changes nothing else (not even through the outbox signal) is noticed too.
            try theirs.database.write { transaction in
                try transaction.execute("UPDATE contexts SET rev = 7 WHERE key = 'trip:1'")
            }
            #expect(try revision() == 7 && reads == 3)
        }
    }

    @Test func whileTheServerLockIsHeldOnlyCommitsThatChangedRowsReadAgain() throws {
        try TemporaryFolder.with { folder in
            let store = try Store.openSQLite(folder: folder)
            let database = try #require(store.database as? SQLiteDatabase)
            try database.claimServer()
            defer { database.releaseServer() }
            try store.makeContext("trip:1", at: 10)
            var reads = 0
            func revision() throws -> Int? {
                try store.revisions.revision(key: "trip:1") {
                    reads += 1
                    return try store.contexts.revision(key: "trip:1")
                }
            }
            #expect(try revision() == 0 && reads == 1)
            // The dispatcher's idle claim: a write that changes no row keeps the cache.
            _ = try store.outbox.claim(owner: "idle", now: time(11), lease: 30, limit: 10)
            #expect(try revision() == 0 && reads == 1)
            try store.write { transaction in _ = try store.contexts.recordChange(key: "trip:1", now: time(20), note: "x", in: transaction) }
            #expect(try revision() == 1 && reads == 2)
            // A write that failed (rolled back) changes nothing either.
            #expect(throws: (any Error).self) {
                try store.write { transaction in
                    _ = try store.contexts.recordChange(key: "trip:1", now: time(30), note: "y", in: transaction)
                    throw StoreError(.misuse, "the domain refused")
                }
            }
            #expect(try revision() == 1 && reads == 2)
        }
    }

    /// A backend that cannot tell when it changed gets no caching.
    struct Opaque: Database {
        let inner: any Database
        var dialect: SQLDialect { inner.dialect }
        var location: String { inner.location }
        func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T { try inner.read(body) }
        func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T { try inner.write(body) }
    }

    @Test func withoutAChangeVersionEveryLookupReads() throws {
        try TemporaryFolder.with { folder in
            let store = try Store.open(Opaque(inner: try SQLiteDatabase(folder: folder)))
            try store.makeContext("trip:1", at: 10)
            var reads = 0
            for _ in 0..<3 {
                _ = try store.revisions.revision(key: "trip:1") {
                    reads += 1; return try store.contexts.revision(key: "trip:1")
                }
            }
            #expect(reads == 3)
        }
    }
}
