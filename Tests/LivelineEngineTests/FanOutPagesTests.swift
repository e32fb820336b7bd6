import Foundation
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// A whole fan-out reads its tokens in pages once its render committed, and sends each page as it
/// is read (``EngineConfiguration/tokenPageSize``; docs/engine.md, "Fan-out for a sync"). Here pages of 2
/// over 5 tokens: three pages, the last one short.
@Suite struct FanOutPagesTests {
    /// Five tokens read in pages of 2, the second page's read failing `failingReads` times, and
    /// one change sent; the harness (stop it) and the tokens.
    static func fanOut(failingReads: Int) throws -> (harness: EngineHarness, tokens: [String]) {
        let harness = try EngineHarness(tokenPageSize: 2)
        do {
            let tokens = try (0..<5).map { try harness.token($0).token }
            // The second page is the first read past a token; the first has gone out by then.
            if failingReads > 0 { harness.faults.failReads(of: "AND id > $", times: failingReads) }
            try harness.put(delay: 3)
            harness.dispatcher.drain()
            return (harness, tokens)
        } catch {
            harness.stop()
            throw error
        }
    }

    /// Every token gets the change once, over several pages, each with its delivery record.
    @Test func everyTokenGetsTheChangeOnceOverSeveralPages() throws {
        let (harness, tokens) = try Self.fanOut(failingReads: 0)
        defer { harness.stop() }

        let pushed = harness.sender.devicePushes.map(\.deviceToken)
        #expect(pushed.sorted() == tokens.sorted(), "each token once")
        let deliveries = try harness.deliveries()
        #expect(deliveries.count == 5)
        #expect(Set(deliveries.map(\.target)).count == 5)
        #expect(deliveries.allSatisfy { $0.status == 200 && $0.priority == 10 })
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        // The state counts as sent: the same state again is not material (it goes at 5).
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState != nil)
    }

    /// A page the database was too busy to read once is read again: the fan-out goes on, and
    /// every token gets the change once.
    @Test func aPageTheDatabaseWasBusyForOnceIsReadAgain() throws {
        let (harness, tokens) = try Self.fanOut(failingReads: 1)
        defer { harness.stop() }

        #expect(harness.sender.devicePushes.map(\.deviceToken) == tokens)
        #expect(try harness.deliveries().count == 5)
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        #expect(harness.events("pushRetried").isEmpty)
    }

    /// A page that cannot be read (three times) stops the fan-out: the pushes made so far are
    /// answered and recorded, the state does not count as sent, and the row goes again as a
    /// whole, after a backoff, to every token (at least once: the first page's get it twice).
    @Test func aPageThatCannotBeReadSendsTheRowAgainAsAWhole() throws {
        let (harness, tokens) = try Self.fanOut(failingReads: 3)  // every try of the second page
        defer { harness.stop() }

        #expect(harness.sender.devicePushes.map(\.deviceToken) == Array(tokens.prefix(2)), "the first page only")
        #expect(try harness.deliveries().count == 2, "both answers recorded")
        let row = try #require(try harness.rows().first { $0.target == nil && $0.status == .due })
        #expect(row.attempts == 1)
        #expect(row.lastError?.contains("could not all be read") == true, "\(row.lastError ?? "no error")")
        #expect(row.dueAt > harness.clock.now, "after a backoff")
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState == nil, "not sent to everyone")
        let retried = harness.events("pushRetried")
        #expect(retried.count == 1)
        #expect(retried.first?["level"] as? String == "warning")

        harness.clock.advance(by: 60)
        harness.dispatcher.drain()
        let pushed = harness.sender.devicePushes.map(\.deviceToken)
        #expect(pushed.count == 7, "the first page twice, the rest once")
        #expect(Set(pushed) == Set(tokens))
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState != nil)
    }

    /// Whether `flag` was still set, clearing it: true the first time only.
    static func takeOnce(_ flag: inout Bool) -> Bool {
        defer { flag = false }
        return flag
    }

    /// A harness with 40 tokens read in pages of 2, answered 50 ms after each request (so pages
    /// overlap), `onRequest` run as each request goes out, and one change sent (`drain`: the
    /// dispatcher drained; else one round); the harness (stop it) and the tokens.
    static func largeFanOut(
        drain: Bool = true, onRequest: @escaping @Sendable (EngineHarness, ScriptedSender.Request, [String]) -> Void
    ) throws -> (harness: EngineHarness, tokens: [String]) {
        let harness = try EngineHarness(tokenPageSize: 2)
        do {
            let tokens = try (0..<40).map { try harness.token($0).token }
            harness.sender.answerAfter(.milliseconds(50))
            harness.sender.onRequest { request in onRequest(harness, request, tokens) }
            try harness.put(delay: 3)
            if drain { harness.dispatcher.drain() } else { harness.dispatcher.runOnce() }
            return (harness, tokens)
        } catch {
            harness.stop()
            throw error
        }
    }

    /// A fan-out far larger than its window: at most ``Dispatcher/pagesInFlight`` pages of
    /// requests wait for APNs at once, and each page is recorded as it is answered — earlier
    /// pages' deliveries are in the database before the last page goes out (with every page sent
    /// at once, all 40 requests waited together and nothing was recorded before the end).
    @Test func aLargeFanOutKeepsAWindowOfPagesInFlightAndRecordsEachAsItIsAnswered() throws {
        let recordedBeforeLast = Mutex<Int?>(nil)
        let leaseBeforeLast = Mutex<Date?>(nil)
        let (harness, tokens) = try Self.largeFanOut { harness, request, tokens in
            // Half-way, 20 s later: the pages recorded from here renew the lease from this time.
            if request.deviceToken == tokens[20] { harness.clock.advance(by: 20) }
            guard request.deviceToken == tokens.last else { return }
            let recorded = (try? harness.deliveries().count) ?? -1
            recordedBeforeLast.withLock { $0 = recorded }
            let lease = try? harness.rows().first { $0.target == nil }?.leaseUntil
            leaseBeforeLast.withLock { $0 = lease }
        }
        defer { harness.stop() }

        let pushed = harness.sender.devicePushes.map(\.deviceToken)
        #expect(pushed.sorted() == tokens.sorted(), "each token once")
        #expect(harness.sender.mostOutstanding <= 4 * 2, "at most 4 pages of 2 waiting: \(harness.sender.mostOutstanding)")
        #expect(harness.sender.mostOutstanding > 2, "pages overlap: \(harness.sender.mostOutstanding)")
        let before = try #require(recordedBeforeLast.withLock { $0 })
        // The last page goes out once the 16th is recorded (four pages of two in flight); the
        // dispatcher may record the next ones while the launcher hands the last page over.
        #expect((32...38).contains(before), "recorded before the last page went out: \(before)")
        // Claimed at T with a lease of 30 s; renewed by a page recorded at T+20 s.
        let lease = try #require(leaseBeforeLast.withLock { $0 })
        #expect(lease == harness.clock.now.addingTimeInterval(30), "\(lease) vs \(harness.clock.now)")
        #expect(try harness.deliveries().count == 40)
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState != nil)
    }

    /// Another dispatcher took the row mid-way (its lease ran out): no page goes out after the
    /// next record finds that, every answer of the pages in flight is still recorded (a fact), and
    /// the row is left to its new holder.
    @Test func aFanOutWhoseLeaseWasTakenStopsSendingAndLeavesTheRow() throws {
        let (harness, tokens) = try Self.largeFanOut { harness, request, tokens in
            guard request.deviceToken == tokens[20] else { return }
            _ = try? harness.store.write { transaction in
                try transaction.execute("UPDATE outbox SET lease_owner = 'dispatcher-b' WHERE status = 'leased'", [])
            }
        }
        defer { harness.stop() }

        let pushed = harness.sender.devicePushes.count
        // Token 20 opened the 11th page. The next record (the 8th page's) finds the lease taken,
        // unless the dispatcher recorded pages 8 to 10 while the launcher was still handing page
        // 11 over: then pages 12 to 14, already asked for, go too. None after them.
        #expect((22...28).contains(pushed), "pages stopped after the lease was lost: \(pushed) of \(tokens.count)")
        #expect(try harness.deliveries().count == pushed, "every answer recorded")
        #expect(harness.events("leaseLost").count >= 1)
        let row = try #require(try harness.rows().first { $0.target == nil })
        #expect(row.status == .leased && row.leaseOwner == "dispatcher-b")
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState == nil)
    }

    /// A dispatcher stopping mid-way sends no further page: the pages in flight are answered
    /// and recorded, and the row goes again as a whole, due at once and without an attempt
    /// counted (a stop is no failure of the push).
    @Test func aFanOutStopsAtAPageWhenTheDispatcherStops() throws {
        let (harness, tokens) = try Self.largeFanOut(drain: false) { harness, request, tokens in
            if request.deviceToken == tokens[20] { harness.dispatcher.stop() }
        }
        defer { harness.stop() }

        let pushed = harness.sender.devicePushes.count
        // As a lost lease (above): no page is asked for once the dispatcher sees it stopping.
        #expect((22...28).contains(pushed), "\(pushed) of \(tokens.count)")
        #expect(try harness.deliveries().count == pushed)
        let row = try #require(try harness.rows().first { $0.target == nil })
        #expect(row.status == .due && row.attempts == 0 && row.dueAt == harness.clock.now)
        #expect(row.lastError?.contains("the dispatcher stopped") == true, "\(row.lastError ?? "no error")")
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState == nil)
    }

    /// Two fan-outs of many pages claimed together: one goes a page at a time, the other goes
    /// back due at once without an attempt counted (its lease would run out while it waits) and
    /// goes in the next round; every token of both gets its change once.
    @Test func twoLargeFanOutsClaimedTogetherGoOneAfterTheOther() throws {
        let harness = try EngineHarness(tokenPageSize: 2)
        defer { harness.stop() }
        let first = try (0..<6).map { try harness.token($0).token }
        let second = try (0..<6).map { index in
            let token = String(format: "%064x", 0xbeef0000 + index)
            try harness.store.tokens.register(
                TokenRegistration(
                    householdID: harness.householdID, userID: harness.userID, deviceID: "phone-b\(index)", kind: .update, environment: .sandbox,
                    token: token, contextKey: "trip:2"), now: harness.clock.now)
            return token
        }
        try harness.put(delay: 3)
        try harness.put(delay: 3, key: "trip:2")

        harness.dispatcher.runOnce()
        let afterOne = Set(harness.sender.devicePushes.map(\.deviceToken))
        #expect(afterOne == Set(first) || afterOne == Set(second), "one fan-out in the first round")
        let waiting = try harness.store.outbox.rows(contextKey: afterOne == Set(first) ? "trip:2" : EngineHarness.contextKey)
        #expect(waiting.count == 1 && waiting[0].status == .due && waiting[0].attempts == 0, "\(waiting)")
        #expect(waiting.first?.dueAt == harness.clock.now)

        harness.dispatcher.drain()
        let pushed = harness.sender.devicePushes.map(\.deviceToken)
        #expect(pushed.sorted() == (first + second).sorted(), "each token once")
        #expect(try harness.store.outbox.rows(contextKey: "trip:2").allSatisfy { $0.status == .done })
        #expect(try harness.rows().allSatisfy { $0.status == .done })
    }

    /// A page whose answers could not be recorded (a busy database, once) is kept; the next
    /// pages wait until it is recorded after its backoff, and the fan-out goes on: every token
    /// once, every answer recorded, the row done and its state sent.
    @Test func aPageRecordedAfterABusyDatabaseDoesNotStopTheFanOut() throws {
        let ticking = Mutex(true)
        let (harness, tokens) = try Self.largeFanOut { harness, request, tokens in
            guard request.deviceToken == tokens[10] else { return }
            harness.faults.arm(failAt: 1, error: StoreError(.busy, "database is locked (injected)"))
            // The engine's clock moves on (ten times real time), so the kept plan's backoff passes.
            Thread.detachNewThread {
                while ticking.withLock({ $0 }) {
                    harness.clock.advance(by: 0.1)
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
        }
        defer { harness.stop() }
        ticking.withLock { $0 = false }

        #expect(harness.events("recordingFailed").count == 1)
        #expect(harness.sender.devicePushes.map(\.deviceToken).sorted() == tokens.sorted(), "each token once")
        #expect(try harness.deliveries().count == 40)
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState != nil)
    }

    /// A database busy for every record until the pages in flight are all answered: the kept
    /// pages are waited for once nothing is in flight, then the fan-out stops — the row goes
    /// again as a whole, its state not counted as sent — instead of ending done with tokens never
    /// read (which it did when the wait was only asked for with a page still in flight).
    @Test func aDatabaseBusyUntilTheWindowDrainedStopsTheFanOut() throws {
        let once = Mutex(true)
        let (harness, tokens) = try Self.largeFanOut { harness, request, tokens in
            guard request.deviceToken == tokens[10], once.withLock({ Self.takeOnce(&$0) }) else { return }
            // Every write fails from here; the engine's clock stands, so no backoff passes.
            harness.faults.arm(failAt: 1, error: StoreError(.busy, "database is locked (injected)"), times: 10_000)
        }
        defer { harness.stop() }
        let sentWhileBusy = harness.sender.devicePushes.count
        #expect(sentWhileBusy < tokens.count, "no page went out behind the kept ones: \(sentWhileBusy)")

        harness.faults.disarm()
        harness.clock.advance(by: 0.5)  // past the kept records' backoff (0.1 s), not the row's (1 s)
        harness.dispatcher.drain()
        #expect(try harness.deliveries().count == sentWhileBusy, "every answer recorded once")
        let row = try #require(try harness.rows().first { $0.target == nil })
        #expect(row.status == .due && row.attempts == 1, "\(row.status) after \(row.attempts) attempts")
        #expect(row.lastError?.contains("could not be recorded") == true, "\(row.lastError ?? "no error")")
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState == nil, "not sent to everyone")

        harness.clock.advance(by: 60)
        harness.dispatcher.drain()
        #expect(Set(harness.sender.devicePushes.map(\.deviceToken)) == Set(tokens), "every token at least once")
        #expect(try harness.rows().allSatisfy { $0.status == .done })
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState != nil)
    }

    /// A page APNs answered nothing of (an outage) stops the fan-out: no more pages, no retry of
    /// each token on its own; the row goes again as a whole after a backoff.
    @Test func aPageWithoutAnyAnswerStopsTheFanOut() throws {
        let harness = try EngineHarness(tokenPageSize: 2)
        defer { harness.stop() }
        let tokens = try (0..<40).map { try harness.token($0).token }
        harness.sender.script { _ in APNSResult(status: 0, transportError: "connection reset (injected)", outcome: .retry(newConnection: true)) }
        try harness.put(delay: 3)
        harness.dispatcher.drain()

        // The first four pages were in flight when the first came back without an answer.
        #expect(harness.sender.devicePushes.count == 8, "\(harness.sender.devicePushes.count) of \(tokens.count)")
        let rows = try harness.rows()
        #expect(rows.count == 1, "no row of one target: \(rows.map(\.target))")
        let row = try #require(rows.first)
        #expect(row.status == .due && row.attempts == 1 && row.dueAt > harness.clock.now)
        #expect(row.lastError?.contains("no answer to any request of a page") == true, "\(row.lastError ?? "no error")")
    }

    /// Once every token was read, a page APNs answered nothing of does not send the fan-out
    /// again as a whole (every token twice): its tokens are retried each on its own.
    @Test func aLastPageWithoutAnyAnswerRetriesItsTokensEachOnItsOwn() throws {
        let harness = try EngineHarness(tokenPageSize: 2)
        defer { harness.stop() }
        let tokens = try (0..<5).map { try harness.token($0).token }
        let cut = Mutex(true)
        harness.sender.script { request in
            guard request.deviceToken == tokens[4], cut.withLock({ Self.takeOnce(&$0) }) else { return ScriptedSender.accepted }
            return APNSResult(status: 0, transportError: "connection reset (injected)", outcome: .retry(newConnection: true))
        }
        try harness.put(delay: 3)
        harness.dispatcher.drain()

        #expect(harness.sender.devicePushes.map(\.deviceToken).sorted() == tokens.sorted(), "each token once")
        let rows = try harness.rows()
        #expect(rows.first { $0.target == nil }?.status == .done, "\(rows.map { ($0.target, $0.status, $0.lastError) })")
        let retry = try #require(rows.first { $0.target != nil })
        #expect(retry.status == .due && retry.dueAt > harness.clock.now)
        #expect(try harness.store.contexts.context(key: EngineHarness.contextKey)?.lastSentState != nil)

        harness.clock.advance(by: 60)
        harness.dispatcher.drain()
        #expect(harness.sender.devicePushes.map(\.deviceToken).sorted() == (tokens + [tokens[4]]).sorted(), "the last token twice")
        #expect(try harness.rows().allSatisfy { $0.status == .done })
    }
}
