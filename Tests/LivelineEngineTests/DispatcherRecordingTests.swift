import Foundation
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// What happens when the transaction that records APNs' answers dies halfway: nothing of it is
/// written, it is recorded whole later, every APNs answer is exactly one delivery record, and a
/// push APNs accepted is not sent again. The transaction is killed at each of its statements in
/// turn (``FaultyDatabase``, armed by the in-memory APNs once it answered).
@Suite struct DispatcherRecordingTests {
    /// Every answer APNs gave is one delivery record, and nothing else is.
    static func expectOneRecordPerAnswer(_ harness: EngineHarness, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let answered = harness.sender.answers.compactMap { $0.apnsID ?? $0.requestID }
        let recorded = try harness.deliveries().compactMap(\.apnsID)
        #expect(recorded.count == answered.count, comment, sourceLocation: sourceLocation)
        #expect(Set(recorded) == Set(answered), comment, sourceLocation: sourceLocation)
    }

    /// The statement that holds the context row first, on PostgreSQL only.
    static var contextLock: Int { TestBackend.isPostgres ? 1 : 0 }

    // MARK: An end to a channel and two tokens

    /// The end of a trip with a channel, a pending alert and two tokens, one of which APNs no
    /// longer knows; its recording killed at statement `failAt` (nil: not killed). Returns how
    /// many statements the recording ran.
    @discardableResult
    static func end(killingTheRecordingAt failAt: Int?) throws -> Int {
        let comment: Comment = "killed at statement \(failAt.map(String.init) ?? "none")"
        let harness = try EngineHarness()
        defer { harness.stop() }
        let kept = try harness.token(0)
        let gone = try harness.token(1)
        try harness.put(delay: 4, alert: #"{"title":"Arrived","body":"S5 is in"}"#)
        let channelID = try harness.attachChannel()
        try harness.engine.endContext(key: EngineHarness.contextKey)
        // APNs learnt of the uninstall after the token's registration: the token is invalid.
        let learnt = harness.clock.now.addingTimeInterval(60)
        harness.sender.script {
            $0.deviceToken == gone.token ? ScriptedSender.refused(410, .unregistered, timestamp: learnt) : ScriptedSender.accepted
        }
        harness.sender.afterSend { harness.faults.arm(failAt: failAt) }
        harness.dispatcher.runOnce()
        harness.sender.afterSend {}
        let statements = try #require(harness.faults.statements.last, comment)
        #expect(harness.sender.requests.count == 3, "the channel and both tokens; \(comment)")

        if failAt != nil {
            // Nothing of the recording was written: no delivery, the row still leased, the token
            // active, the channel attached, the alert pending, no deletion queued.
            #expect(try harness.deliveries().isEmpty, comment)
            #expect(try harness.rows().map(\.status) == [.leased], comment)
            #expect(try harness.store.tokens.record(id: gone.id)?.status == .active, comment)
            let context = try #require(try harness.store.contexts.context(key: EngineHarness.contextKey))
            #expect(try harness.contextChannel() == channelID && context.alert != nil && context.lastSentState == nil, comment)
            #expect(try harness.store.channels.channel(id: channelID)?.isActive == true, comment)
            let failed = harness.events("recordingFailed")
            #expect(failed.count == 1, comment)
            #expect(failed.first?["context.key"] as? String == EngineHarness.contextKey, comment)
            #expect(failed.first?["apns.id"] as? String == harness.sender.answers.first?.requestID, comment)
            // After the backoff: recorded whole, and the channel's deletion that follows from it sent.
            harness.clock.advance(by: 1)
        }
        harness.dispatcher.drain()

        try expectOneRecordPerAnswer(harness, comment)
        #expect(harness.sender.devicePushes.count == 2, "no push was sent again; \(comment)")
        #expect(harness.sender.requests.filter { if case .broadcast = $0 { true } else { false } }.count == 1, comment)
        #expect(harness.sender.requests.filter { if case .deleteChannel = $0 { true } else { false } }.count == 1, comment)
        #expect(try harness.store.tokens.record(id: gone.id)?.status == .invalid, comment)
        #expect(try harness.store.tokens.record(id: kept.id)?.status == .active, comment)
        let context = try #require(try harness.store.contexts.context(key: EngineHarness.contextKey))
        #expect(try harness.contextChannel() == nil && context.alert == nil && context.lastSentState != nil, comment)
        #expect(try harness.store.channels.channel(id: channelID)?.isActive == false, comment)
        #expect(try harness.rows().allSatisfy { $0.status == .done }, comment)
        #expect(harness.events("tokenInvalidated").count == 1, comment)
        return statements
    }

    @Test func anEndWhoseRecordingIsKilledAtAnyStatementIsRecordedWholeAndOnceAndNothingIsSentAgain() throws {
        let statements = try Self.end(killingTheRecordingAt: nil)
        // The row completed, three deliveries (one statement), the token, the hints, the state
        // sent, the context and the channel's link read (still ended with the channel?), the
        // channel detached and its deletion queued (the channel's row follows from the deletion's
        // answer); on PostgreSQL the context held first.
        #expect(statements == 9 + Self.contextLock)
        for failAt in 1...statements { try Self.end(killingTheRecordingAt: failAt) }
    }

    // MARK: A push-to-start

    /// An accepted start whose recording is killed at `failAt`; healed only after the row's lease
    /// ran out, so a dispatcher that claimed again would send it a second time.
    @discardableResult
    static func start(killingTheRecordingAt failAt: Int?) throws -> Int {
        let comment: Comment = "killed at statement \(failAt.map(String.init) ?? "none")"
        let harness = try EngineHarness()
        defer { harness.stop() }
        let token = try harness.token(0, kind: .pushToStart)
        try harness.put(delay: 2)
        harness.dispatcher.drain()  // the first update: nobody to send to
        let result = try harness.engine.startActivities(
            contextKey: EngineHarness.contextKey, userIDs: [harness.userID], deviceIDs: [], alert: LiveActivityAlert(title: "S5")
        )
        #expect(result.outcomes.map(\.kind) == [.queued], comment)
        harness.sender.afterSend { harness.faults.arm(failAt: failAt) }
        harness.dispatcher.runOnce()
        harness.sender.afterSend {}
        let statements = try #require(harness.faults.statements.last, comment)
        #expect(harness.sender.devicePushes.map(\.deviceToken) == [token.token], comment)

        if failAt != nil {
            #expect(try harness.deliveries().isEmpty, comment)
            #expect(try harness.store.starts.starts(contextKey: EngineHarness.contextKey).map(\.status) == [.queued], comment)
            #expect(try harness.rows().filter { $0.kind == .message }.map(\.status) == [.leased], comment)
            harness.clock.advance(by: 31)  // past the lease
        }
        harness.dispatcher.drain()

        #expect(harness.sender.devicePushes.count == 1, "an accepted start is never sent again; \(comment)")
        try expectOneRecordPerAnswer(harness, comment)
        #expect(try harness.store.starts.starts(contextKey: EngineHarness.contextKey).map(\.status) == [.sent], comment)
        #expect(try harness.rows().allSatisfy { $0.status == .done }, comment)
        #expect(harness.engine.metrics.snapshot.starts["sent"] == 1, comment)
        return statements
    }

    @Test func anAcceptedStartWhoseRecordingIsKilledAtAnyStatementIsNeverSentAgain() throws {
        let statements = try Self.start(killingTheRecordingAt: nil)
        // The delivery, the start's verdict, the row completed; on PostgreSQL the context held first.
        #expect(statements == 3 + Self.contextLock)
        for failAt in 1...statements { try Self.start(killingTheRecordingAt: failAt) }
    }

    @Test func whileAnswersCannotBeRecordedNothingIsClaimedEvenPastTheLease() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        _ = try harness.queueStart()
        // The database fails for the recording and for the next four writes: every later round
        // tries the recording again (each past the lease and the backoff) and claims nothing.
        harness.sender.afterSend { harness.faults.arm(failAt: 1, times: 5) }
        harness.dispatcher.runOnce()
        harness.sender.afterSend {}
        for _ in 0..<4 {
            harness.clock.advance(by: 31)
            #expect(harness.dispatcher.runOnce() == 0, "nothing is claimed while answers wait")
        }
        #expect(harness.faults.statements.count == 5, "the recording was tried five times")
        #expect(harness.sender.devicePushes.count == 1)
        #expect(try harness.rows().filter { $0.kind == .message }.map(\.status) == [.leased], "still this dispatcher's")
        #expect(harness.events("recordingFailed").count == 5)
        // The database works again: recorded, and the start was sent once.
        harness.clock.advance(by: 31)
        harness.dispatcher.drain()
        #expect(harness.sender.devicePushes.count == 1)
        #expect(try harness.store.starts.starts(contextKey: EngineHarness.contextKey).map(\.status) == [.sent])
        try Self.expectOneRecordPerAnswer(harness, "healed")
    }

    // MARK: Retries, failures for good, lost leases

    @Test func aTargetRetryWhoseRecordingIsKilledIsQueuedOnceAndItsPushComesBackOnce() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        let token = try harness.token(0)
        try harness.put(delay: 4)
        harness.sender.script { _ in ScriptedSender.refused(500, .internalServerError) }
        harness.sender.afterSend { harness.faults.arm(failAt: 2) }  // after the delivery, before the retry row
        harness.dispatcher.runOnce()
        harness.sender.afterSend {}
        #expect(try harness.deliveries().isEmpty)
        #expect(try harness.rows().map(\.status) == [.leased])

        harness.sender.script { _ in ScriptedSender.accepted }
        harness.clock.advance(by: 0.5)  // past the recording's backoff, not yet the push's (1 s)
        harness.dispatcher.runOnce()
        let rows = try harness.rows()
        #expect(rows.map(\.status) == [.done, .due], "the fan-out done, one retry of its target")
        #expect(rows.last?.target == .token(token.id))
        #expect(rows.last?.dueAt == harness.clock.now.addingTimeInterval(0.5))
        #expect(try harness.deliveries().map(\.status) == [500])

        harness.clock.advance(by: 1)
        harness.dispatcher.drain()
        #expect(harness.sender.devicePushes.count == 2, "the refused push and its one retry")
        try Self.expectOneRecordPerAnswer(harness, "retried")
        #expect(try harness.deliveries().map(\.status).sorted() == [200, 500])
    }

    @Test func aRecordingThatCanNeverSucceedMovesTheRowOnAndLogsEveryAnswer() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        _ = try harness.queueStart()
        // Not a busy database: a failure that would come again (a constraint).
        harness.sender.afterSend { harness.faults.arm(failAt: 1, error: StoreError(.constraint, "CHECK constraint failed (injected)")) }
        harness.dispatcher.runOnce()
        harness.sender.afterSend {}
        // The row moved on as planned (completed: APNs accepted the start), without its records.
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        #expect(try harness.deliveries().isEmpty)
        // The log is the answer's only record: its apns-id, status and context.
        let apnsID = try #require(harness.sender.answers.last?.apnsID)
        let abandoned = harness.events("recordingAbandoned")
        #expect(abandoned.count == 1)
        #expect(abandoned.first?["level"] as? String == "error")
        #expect(abandoned.first?["apns.id"] as? String == apnsID)
        #expect(abandoned.first?["apns.status"] as? Int == 200)
        #expect(abandoned.first?["context.key"] as? String == EngineHarness.contextKey)
        harness.clock.advance(by: 31)
        harness.dispatcher.drain()
        #expect(harness.sender.devicePushes.count == 1, "the accepted start is not sent again")
    }

    /// Two dispatchers on one database. The first sent the trip (delay 4) but could not record
    /// APNs' answers, and its lease has run out meanwhile. Stop `first` when done.
    static func answersWaitingPastTheLease() throws -> (first: EngineHarness, second: EngineHarness) {
        let first = try EngineHarness()
        let second = try EngineHarness(dispatcherID: "dispatcher-b", sharing: first)
        _ = try first.token(0)
        try first.put(delay: 4)
        first.sender.afterSend { first.faults.arm(failAt: 1) }
        first.dispatcher.runOnce()
        first.sender.afterSend {}
        first.clock.advance(by: 31)
        return (first, second)
    }

    @Test func answersRecordedAfterAnotherDispatcherTookTheRowAreRecordedAndTheLostLeaseLogged() throws {
        let (first, second) = try Self.answersWaitingPastTheLease()
        defer { first.stop() }
        // The second takes the row back and sends it again (at least once: the snapshot is the
        // same, the phone keeps one).
        second.dispatcher.drain()
        #expect(first.sender.devicePushes.count == 2)
        first.dispatcher.drain()
        try Self.expectOneRecordPerAnswer(first, "two dispatchers")
        #expect(first.events("leaseLost").count == 1)
        #expect(first.events("leaseLost").first?["outbox.id"] as? Int == (try first.rows().first?.id))
        #expect(try first.rows().allSatisfy { $0.status == .done })
    }

    /// Two rows answered together, one alert and one sync.
    static func twoRows(_ harness: EngineHarness) throws {
        _ = try harness.token(0)
        let alert = try harness.token(1, kind: .alert)
        try harness.put(delay: 4)
        try harness.store.write { transaction in
            try harness.store.outbox.enqueueMessage(
                idempotencyKey: "alert:batch", contextKey: nil, target: nil,
                headers: #"{"kind":"alert","note":"a test alert","priority":10,"pushType":"alert","tokenID":\#(alert.id.rawValue)}"#,
                payload: Array(#"{"aps":{"alert":{"title":"Hallo"}}}"#.utf8), now: harness.clock.now, in: transaction)
        }
    }

    @Test func theRowsOfABatchAreRecordedByOneTransaction() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        try Self.twoRows(harness)
        // Once APNs answered, every write transaction is counted (none fails).
        let beforeRecording = Mutex(0)
        harness.sender.afterSend {
            harness.faults.arm(failAt: nil, times: 100)
            beforeRecording.withLock { $0 = harness.faults.statements.count }
        }
        #expect(harness.dispatcher.runOnce() == 2)
        harness.sender.afterSend {}
        harness.faults.disarm()
        let transactions = harness.faults.statements.count - beforeRecording.withLock { $0 }
        #expect(transactions == 1, "both rows' answers in one write: \(transactions)")
        #expect(try harness.store.database.read { try $0.query("SELECT status FROM outbox").map { try $0.string("status") } } == ["done", "done"])
    }

    /// A busy or failing database keeps the whole batch for later: nothing of it is written, nothing
    /// new is claimed, and it is recorded whole once the database answers again.
    @Test func aBatchTheDatabaseCannotTakeNowWaitsWholeAndIsRecordedOnce() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        try Self.twoRows(harness)
        harness.sender.afterSend { harness.faults.arm(failAt: 2) }  // disk I/O error: transient
        #expect(harness.dispatcher.runOnce() == 2)
        harness.sender.afterSend {}
        #expect(try harness.store.database.read { try $0.query("SELECT id FROM deliveries") }.isEmpty, "nothing of the batch was written")
        #expect(harness.events("recordingFailed").count == 1)
        harness.clock.advance(by: 1)
        harness.dispatcher.drain()
        let recorded = try harness.store.database.read { transaction in
            try transaction.query("SELECT apns_id FROM deliveries ORDER BY id").map { try $0.optionalString("apns_id") }
        }
        #expect(Set(recorded) == Set(harness.sender.answers.map { $0.apnsID ?? $0.requestID }) && recorded.count == 2)
        #expect(harness.sender.requests.count == 2, "nothing sent again")
        #expect(try harness.store.database.read { try $0.query("SELECT status FROM outbox").map { try $0.string("status") } } == ["done", "done"])
    }

    /// The rows of one batch are recorded in one transaction; when it dies, each row is recorded
    /// alone right away, whole and once.
    @Test func aBatchWhoseRecordingDiesIsRecordedRowByRowWholeAndOnce() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        try Self.twoRows(harness)
        // Not a busy database (that would keep the batch for later, as one): a statement that fails.
        harness.sender.afterSend { harness.faults.arm(failAt: 2, error: StoreError(.constraint, "injected")) }
        #expect(harness.dispatcher.runOnce() == 2, "one batch of both rows")
        harness.sender.afterSend {}
        #expect(harness.sender.requests.count == 2)
        let statements = harness.faults.statements
        #expect(statements.suffix(3).first == 2, "the batch's transaction died at its second statement: \(statements)")
        let recorded = try harness.store.database.read { transaction in
            try transaction.query("SELECT apns_id FROM deliveries ORDER BY id").map { try $0.optionalString("apns_id") }
        }
        let answered = harness.sender.answers.map { $0.apnsID ?? $0.requestID }
        #expect(recorded.count == 2 && Set(recorded) == Set(answered), "one record per answer: \(recorded) vs \(answered)")
        let statuses = try harness.store.database.read { transaction in
            try transaction.query("SELECT status FROM outbox ORDER BY id").map { try $0.string("status") }
        }
        #expect(statuses == ["done", "done"])
        #expect(harness.events("recordingFailed").count == 1, "the batch's failure is logged once")
        #expect(harness.events("recordingAbandoned").isEmpty)
        #expect(harness.dispatcher.runOnce() == 0, "nothing is left to send")
        #expect(harness.sender.requests.count == 2)
    }

    /// A dispatcher whose lease ran out records APNs' answers, but not what steers the context:
    /// the state the newer attempt sent stays the last one sent.
    @Test func aDispatcherWhoseLeaseRanOutDoesNotOverwriteWhatTheNewerAttemptRecorded() throws {
        let (first, second) = try Self.answersWaitingPastTheLease()
        defer { first.stop() }
        // The context changes and the second dispatcher sends the newer state.
        try first.put(delay: 7)
        second.dispatcher.drain()
        let sentBySecond = try #require(try first.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState)
        #expect(sentBySecond.contains(#""delay":7"#))

        first.dispatcher.runOnce()  // records the kept plan: the state with delay 4, sent before
        #expect(first.events("leaseLost").count == 1)
        try Self.expectOneRecordPerAnswer(first, "the stale answers are recorded too")
        #expect(first.sender.devicePushes.count == 2)
        let context = try #require(try first.store.contexts.context(key: EngineHarness.contextKey))
        #expect(context.lastSentState == sentBySecond, "the newer attempt's state, not the stale one")
        #expect(try first.rows().allSatisfy { $0.status == .done })
    }

    @Test func answersStillUnrecordedWhenTheEngineStopsAreLoggedAndRecordedAfterTheNextStart() async throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        _ = try harness.token(0)
        // Once APNs answered, the database fails for good (until the test heals it).
        harness.sender.afterSend { harness.faults.arm(failAt: 1, times: 1000) }
        harness.engine.start()
        try harness.put(delay: 1)
        #expect(await eventually { !harness.events("recordingFailed").isEmpty })
        #expect(harness.engine.stop())
        let unfinished = harness.events("recordingUnfinished")
        #expect(unfinished.count == 1 && unfinished.first?["level"] as? String == "error")
        #expect(unfinished.first?["context.key"] as? String == EngineHarness.contextKey)

        harness.sender.afterSend {}
        harness.faults.disarm()
        harness.clock.advance(by: 1)
        harness.engine.start()
        #expect(try await eventually { try harness.deliveries().count == 1 })
        #expect(harness.engine.stop())
        #expect(harness.sender.devicePushes.count == 1)
        try Self.expectOneRecordPerAnswer(harness, "after the restart")
    }

    /// A stored alert that cannot be read (a damaged row) does not cost the update: it goes
    /// without the alert, and the log says so.
    @Test func anUnreadableStoredAlertIsLeftOutAndLogged() throws {
        let harness = try EngineHarness()
        _ = try harness.token(0)
        try harness.put(delay: 1, alert: #"{"title":"Verspätung"}"#)
        try harness.store.write { transaction in
            try transaction.execute("UPDATE contexts SET alert = 'not json' WHERE key = $1", [.text(EngineHarness.contextKey)])
        }
        harness.dispatcher.drain()
        let push = try #require(harness.sender.devicePushes.last)
        let aps = try #require((try JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["alert"] == nil)
        #expect(((aps["content-state"] as? [String: Any])?["delay"] as? Int) == 1)
        #expect(harness.events("alertDropped").first?["context.key"] as? String == EngineHarness.contextKey, "\(harness.log.lines)")
    }
}
