import Foundation
@testable import LivelineEngine
import LivelinePush
import LivelinePushWire
import LivelineStore
import Testing

/// The dispatcher's rules as a pure function: a row, what it sent and APNs' answers in, the plan
/// out — no database, no sockets. Backoff without jitter, so every due time is exact.
@Suite struct DispatchPlannerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// 1 s, 2 s, 4 s, …; four sends in all.
    static let policy = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(60), jitter: 0, maximumAttempts: 4)
    static let deviceToken = String(repeating: "ab", count: 32)

    let planner = DispatchPlanner(retryPolicy: Self.policy)

    static func row(
        id: Int = 7, kind: OutboxKind = .sync, contextKey: String? = "trip:1", target: OutboxTarget? = nil, attempts: Int = 0
    ) -> OutboxRow {
        OutboxRow(
            id: id, kind: kind, contextKey: contextKey, target: target, idempotencyKey: nil, payload: nil, headers: nil, status: .leased,
            attempts: attempts, dueAt: now.addingTimeInterval(-1), leaseOwner: "d", leaseUntil: now.addingTimeInterval(30),
            createdAt: now.addingTimeInterval(-1), updatedAt: now.addingTimeInterval(-1), lastError: nil
        )
    }

    static func tokenSend(_ id: PushTokenID, note: String = "update rev 3 · p10: material") -> PreparedSend {
        PreparedSend(
            target: .token(id), request: .device(.liveActivity(deviceToken: deviceToken, bundleID: "app", payload: [])), priority: 10, note: note
        )
    }

    static func channelSend(_ id: String) -> PreparedSend {
        PreparedSend(
            target: .channel(id), request: .broadcast(APNSBroadcast(bundleID: "app", channelID: id, payload: [])), priority: 10, note: "broadcast")
    }

    /// APNs' answer, classified as the client classifies it.
    static func answer(_ status: Int, _ reason: APNSReason? = nil, timestamp: Date? = nil, apnsID: String = "apns-1") -> APNSResult {
        APNSResult(
            status: status, reason: reason, timestamp: timestamp, apnsID: apnsID, latency: .milliseconds(12),
            outcome: APNSOutcome.classify(status: status, reason: reason, timestamp: timestamp)
        )
    }

    static func sync(carriesHints: Bool = false, channelsToRetire: [String] = [], fanOut: Bool = true) -> RenderedSync {
        RenderedSync(
            contextKey: "trip:1", rev: 3, contractName: "TripLiveActivityAttributes", payload: [],
            carriesHints: carriesHints, pushes: [], channelsToRetire: channelsToRetire, sentState: fanOut ? #"{"delay":4}"# : nil,
            renderedAt: now.addingTimeInterval(-0.5)
        )
    }

    func plan(
        _ row: OutboxRow, sends: [PreparedSend], answers: [APNSResult], sync: RenderedSync? = nil, message: OutboxMessage? = nil
    ) -> DispatchPlan {
        let prepared = PreparedRow(row: row, rev: sync?.rev ?? 3, sends: sends, sync: sync, message: message)
        let outcomes = zip(sends, answers).map { SendOutcome(send: $0, result: $1) }
        var random = SystemRandomNumberGenerator()
        return planner.plan(prepared, outcomes: outcomes, at: Self.now, random: &random)
    }

    func plan(_ row: OutboxRow, unsent reason: Preparation.Reason) -> DispatchPlan {
        var random = SystemRandomNumberGenerator()
        return planner.plan(row, unsent: reason, at: Self.now, random: &random)
    }

    static func start(startID: Int = 5) -> OutboxMessage {
        .start(
            tokenID: 2, startID: startID, rev: 3, push: OutboxMessage.Push(pushType: .liveActivity, priority: .immediate),
            note: "start rev 3 on device phone-1")
    }

    // MARK: Answered

    @Test func anAcceptedFanOutIsOneDeliveryPerAnswerItsStateSentAndTheRowComplete() {
        let plan = plan(
            Self.row(), sends: [Self.channelSend("ch-1"), Self.tokenSend(1), Self.tokenSend(2)],
            answers: [Self.answer(200, apnsID: "r-1"), Self.answer(200, apnsID: "a-1"), Self.answer(200, apnsID: "a-2")],
            sync: Self.sync(carriesHints: true)
        )
        #expect(plan.row == .complete)
        #expect(plan.deliveries.map(\.apnsID) == ["r-1", "a-1", "a-2"])
        #expect(plan.deliveries.map(\.target) == ["ch-1", "1", "2"])
        #expect(plan.deliveries.map(\.targetKind) == [.channel, .token, .token])
        #expect(
            plan.deliveries.allSatisfy {
                $0.outboxID == 7 && $0.contextKey == "trip:1" && $0.rev == 3 && $0.status == 200 && $0.priority == 10
                    && $0.latencyMilliseconds == 12 && $0.attemptedAt == Self.now
            })
        #expect(plan.hintsSent == DispatchPlan.HintsSent(contextKey: "trip:1", rev: 3))
        #expect(
            plan.sentState
                == DispatchPlan.SentState(contextKey: "trip:1", contentState: #"{"delay":4}"#, renderedAt: Self.now.addingTimeInterval(-0.5)))
        #expect(plan.targetRetries.isEmpty && plan.deadTargets.isEmpty && plan.invalidTokens.isEmpty && plan.start == nil)
        #expect(plan.retiredChannels.isEmpty && plan.deletedChannels.isEmpty && plan.rowEvent == nil)
    }

    @Test func a410AfterTheRegistrationMarksTheTokenInvalidIfRegisteredBeforeAPNsTimestamp() {
        let learnt = Self.now.addingTimeInterval(-60)
        let plan = plan(
            Self.row(), sends: [Self.tokenSend(1), Self.tokenSend(2)],
            answers: [Self.answer(200), Self.answer(410, .unregistered, timestamp: learnt, apnsID: "dead-2")], sync: Self.sync()
        )
        #expect(
            plan.invalidTokens == [
                DispatchPlan.TokenInvalidation(tokenID: 2, reason: "Unregistered", registeredBefore: learnt, apnsID: "dead-2", status: 410)
            ])
        // Never retried, not a dead letter: the token is gone, the row is done.
        #expect(plan.row == .complete && plan.targetRetries.isEmpty && plan.deadTargets.isEmpty)
        #expect(plan.deliveries.map(\.status) == [200, 410])
    }

    @Test func aBadDeviceTokenIsInvalidWhateverItsRegistration() {
        let plan = plan(Self.row(), sends: [Self.tokenSend(4)], answers: [Self.answer(400, .badDeviceToken)], sync: Self.sync())
        #expect(plan.invalidTokens.map(\.registeredBefore) == [nil])
        #expect(plan.invalidTokens.map(\.reason) == ["BadDeviceToken"])
        // Nothing was delivered: the state sent stays the one before.
        #expect(plan.sentState == nil)
    }

    @Test func a5xxOnAFanOutTargetRetriesThatTargetAloneAfterTheFirstBackoff() {
        let plan = plan(
            Self.row(), sends: [Self.tokenSend(1), Self.tokenSend(2)], answers: [Self.answer(500, .internalServerError), Self.answer(200)],
            sync: Self.sync()
        )
        #expect(plan.targetRetries == [DispatchPlan.TargetRetry(contextKey: "trip:1", target: .token(1), dueAt: Self.now.addingTimeInterval(1))])
        #expect(plan.row == .complete)
        #expect(plan.sentState != nil, "the fan-out reached a target")
        #expect(plan.events.map(\.name) == [.pushRetried])
    }

    /// A whole fan-out whose tokens could not all be read goes again as a whole: no target of it
    /// gets a retry of its own besides (it would be sent twice), and the state and hints do not
    /// count as sent. Out of attempts, it is a dead letter.
    @Test func aFanOutThatDidNotReachEveryTokenGoesAgainAsAWholeWithoutTargetRetries() {
        let sends = [Self.tokenSend(1), Self.tokenSend(2)]
        let answers = [Self.answer(500, .internalServerError), Self.answer(200)]
        var prepared = PreparedRow(row: Self.row(), rev: 3, sends: sends, sync: Self.sync(carriesHints: true), message: nil)
        prepared.unfinished = "the fan-out's tokens could not all be read (disk I/O error); sent to 2"
        var random = SystemRandomNumberGenerator()
        let outcomes = zip(sends, answers).map { SendOutcome(send: $0, result: $1) }
        let plan = planner.plan(prepared, outcomes: outcomes, at: Self.now, random: &random)
        #expect(plan.targetRetries.isEmpty)
        #expect(plan.events.isEmpty, "no target is said to be sent again on its own")
        #expect(plan.row == .retry(at: Self.now.addingTimeInterval(1), error: prepared.unfinished!))
        #expect(plan.deliveries.count == 2, "both answers recorded")
        #expect(plan.sentState == nil && plan.hintsSent == nil)
        #expect(plan.rowEvent?.level == .warning)

        prepared = PreparedRow(row: Self.row(attempts: 3), rev: 3, sends: sends, sync: Self.sync(), message: nil)
        prepared.unfinished = "the fan-out's tokens could not all be read (disk I/O error); sent to 2"
        let last = planner.plan(prepared, outcomes: outcomes, at: Self.now, random: &random)
        #expect(last.row == .deadLetter(reason: "gave up after 4 attempts: \(prepared.unfinished!)"))
    }

    /// A page of a fan-out sent a page at a time: its answers as a whole row's (a delivery each,
    /// a target's own retry, a dead token, the end's channel retired), the row kept and its lease
    /// renewed; nothing of the whole row (hints, state). Once the fan-out stopped, no target gets
    /// a retry of its own (the row goes again as a whole).
    @Test func aPageOfAFanOutRecordsItsAnswersAndKeepsTheRowLeased() {
        let sends = [Self.tokenSend(1), Self.tokenSend(2), Self.tokenSend(3), Self.channelSend("Y2g=")]
        let answers = [Self.answer(200), Self.answer(500, .internalServerError), Self.answer(410, .unregistered), Self.answer(200)]
        let prepared = PreparedRow(
            row: Self.row(), rev: 3, sends: sends, sync: Self.sync(carriesHints: true, channelsToRetire: ["Y2g="]), message: nil)
        let outcomes = zip(sends, answers).map { SendOutcome(send: $0, result: $1) }
        var random = SystemRandomNumberGenerator()
        let until = Self.now.addingTimeInterval(30)
        let plan = planner.planPage(
            prepared, outcomes: outcomes, leaseUntil: until, retriesTargets: true, environmentsAhead: [], at: Self.now, random: &random)
        #expect(plan.row == .keep(leaseUntil: until))
        #expect(plan.deliveries.count == 4)
        #expect(plan.targetRetries.map(\.target) == [.token(2)])
        #expect(plan.invalidTokens.map(\.tokenID) == [3])
        #expect(plan.retiredChannels.map(\.channelID) == ["Y2g="])
        #expect(plan.hintsSent == nil && plan.sentState == nil, "the whole row's, at its end")

        let stopped = planner.planPage(
            prepared, outcomes: outcomes, leaseUntil: until, retriesTargets: false, environmentsAhead: [], at: Self.now, random: &random)
        #expect(stopped.targetRetries.isEmpty)
        #expect(stopped.deliveries.count == 4 && stopped.invalidTokens.count == 1)
    }

    /// A token the default environment does not know (`BadDeviceToken`, its environment a guess)
    /// moves to the other one; when that environment's pages are still to be read, it is sent
    /// with them instead of on its own.
    @Test func aTokenMovedToAnEnvironmentNotReadYetIsSentWithItsPages() {
        var send = Self.tokenSend(5)
        send.fallbackEnvironment = .production
        let prepared = PreparedRow(row: Self.row(), rev: 3, sends: [send], sync: Self.sync(), message: nil)
        let outcomes = [SendOutcome(send: send, result: Self.answer(400, .badDeviceToken))]
        var random = SystemRandomNumberGenerator()
        let until = Self.now.addingTimeInterval(30)
        let ahead = planner.planPage(
            prepared, outcomes: outcomes, leaseUntil: until, retriesTargets: true, environmentsAhead: [.production], at: Self.now,
            random: &random)
        #expect(ahead.invalidTokens.first?.moveTo == .production)
        #expect(ahead.targetRetries.isEmpty)
        let read = planner.planPage(
            prepared, outcomes: outcomes, leaseUntil: until, retriesTargets: true, environmentsAhead: [], at: Self.now, random: &random)
        #expect(read.targetRetries.map(\.target) == [.token(5)])
    }

    /// The end of a fan-out sent a page at a time: done, its hints and state recorded when a
    /// token accepted it; stopped part-way, again as a whole — after a backoff with an attempt
    /// counted, or at once without one when the dispatcher stopped.
    @Test func theEndOfAFanOutSentAPageAtATime() {
        var random = SystemRandomNumberGenerator()
        var prepared = PreparedRow(row: Self.row(), rev: 3, sends: [], sync: Self.sync(carriesHints: true), message: nil)
        let done = planner.planEnd(prepared, delivered: true, stopped: false, at: Self.now, random: &random)
        #expect(done.row == .complete)
        #expect(done.hintsSent != nil && done.sentState != nil)
        let nobody = planner.planEnd(prepared, delivered: false, stopped: false, at: Self.now, random: &random)
        #expect(nobody.row == .complete && nobody.hintsSent == nil && nobody.sentState == nil)

        prepared.unfinished = "the dispatcher stopped after 22 of the fan-out's requests"
        let stopped = planner.planEnd(prepared, delivered: true, stopped: true, at: Self.now, random: &random)
        #expect(stopped.row == .postpone(until: Self.now, reason: prepared.unfinished!))
        #expect(stopped.hintsSent == nil && stopped.sentState == nil)
        let failed = planner.planEnd(prepared, delivered: true, stopped: false, at: Self.now, random: &random)
        #expect(failed.row == .retry(at: Self.now.addingTimeInterval(1), error: prepared.unfinished!))
    }

    @Test func a5xxOnARowOfOneTargetRetriesTheRowWithExponentialBackoff() {
        // One earlier try of this row, and the fan-out send before it: this is send 3, so the wait is 4 s.
        let plan = plan(
            Self.row(target: .token(1), attempts: 1), sends: [Self.tokenSend(1)], answers: [Self.answer(503, .serviceUnavailable)],
            sync: Self.sync(fanOut: false)
        )
        #expect(plan.row == .retry(at: Self.now.addingTimeInterval(4), error: "503 ServiceUnavailable"))
        #expect(plan.targetRetries.isEmpty)
        #expect(plan.rowEvent?.name == .pushRetried)
    }

    @Test func noAnswerIsRetriedLikeA5xxAndMarksAStartAsMaybeSent() {
        let noAnswer = APNSResult(status: 0, transportError: "no answer within 24 s", outcome: .retry(newConnection: true))
        let plan = plan(Self.row(kind: .message, target: .token(2)), sends: [Self.tokenSend(2)], answers: [noAnswer], message: Self.start())
        // Marked: APNs may have taken it, so it waits one lease for its device's answer when claimed again.
        #expect(plan.row == .retry(at: Self.now.addingTimeInterval(1), error: "may have been sent: no answer: no answer within 24 s"))
        #expect(plan.start == nil, "a start APNs did not answer is still undecided")
        #expect(plan.deliveries.map(\.reason) == ["no answer within 24 s"])
    }

    @Test func outOfAttemptsTheRowIsADeadLetterWithTheLastAnswerAndItsStartFails() {
        let plan = plan(
            Self.row(kind: .message, target: .token(2), attempts: 3), sends: [Self.tokenSend(2)], answers: [Self.answer(429, .tooManyRequests)],
            message: Self.start()
        )
        #expect(plan.row == .deadLetter(reason: "gave up after 4 attempts: 429 TooManyRequests"))
        #expect(
            plan.start == DispatchPlan.StartFinish(startID: 5, accepted: false, reason: "gave up after 4 attempts", counted: true),
            "its own decision, not APNs' answer")
        #expect(plan.rowEvent?.name == .deadLetter && plan.rowEvent?.level == .warning)
        #expect(plan.events.map(\.name) == [.startFailed])
    }

    @Test func anAcceptedStartFinishesTheStartAndCompletesTheRow() {
        let plan = plan(Self.row(kind: .message, target: .token(2)), sends: [Self.tokenSend(2)], answers: [Self.answer(200)], message: Self.start())
        #expect(plan.start == DispatchPlan.StartFinish(startID: 5, accepted: true, reason: nil, counted: true, answered: true))
        #expect(plan.row == .complete)
        #expect(plan.deliveries.count == 1)
    }

    @Test func aStartRefusedForGoodFailsAndIsADeadLetter() {
        let plan = plan(
            Self.row(kind: .message, target: .token(2)), sends: [Self.tokenSend(2, note: "start rev 3 on device phone-1")],
            answers: [Self.answer(413, .payloadTooLarge)], message: Self.start()
        )
        #expect(plan.start == DispatchPlan.StartFinish(startID: 5, accepted: false, reason: "413 PayloadTooLarge", counted: true, answered: true))
        #expect(plan.row == .deadLetter(reason: "APNs answered 413 PayloadTooLarge (start rev 3 on device phone-1); not retried"))
    }

    @Test func aStartToADeadTokenFailsTheStartInvalidatesTheTokenAndCompletes() {
        let plan = plan(
            Self.row(kind: .message, target: .token(2)), sends: [Self.tokenSend(2)], answers: [Self.answer(400, .badDeviceToken)],
            message: Self.start())
        #expect(plan.start?.accepted == false)
        #expect(plan.invalidTokens.map(\.tokenID) == [2])
        #expect(plan.row == .complete)
    }

    @Test func aPermanentRefusalOfAFanOutTargetIsADeadTargetBesideTheCompletedRow() {
        let plan = plan(
            Self.row(), sends: [Self.tokenSend(1), Self.tokenSend(2)], answers: [Self.answer(200), Self.answer(403, .forbidden)], sync: Self.sync())
        #expect(
            plan.deadTargets == [
                DispatchPlan.DeadTarget(
                    contextKey: "trip:1", target: .token(2), reason: "APNs answered 403 Forbidden (update rev 3 · p10: material); not retried"
                )
            ])
        #expect(plan.row == .complete)
        #expect(plan.deadLetterCount == 1)
    }

    @Test func theEndRetiresTheContextsChannelOnceItReachedIt() {
        let reached = plan(
            Self.row(), sends: [Self.channelSend("ch-1"), Self.tokenSend(1)], answers: [Self.answer(200), Self.answer(500)],
            sync: Self.sync(channelsToRetire: ["ch-1"])
        )
        #expect(reached.retiredChannels == [DispatchPlan.ChannelRetirement(contextKey: "trip:1", channelID: "ch-1")])
        // After a retryable answer from the channel the channel stays, for the end's retry.
        let retried = plan(
            Self.row(), sends: [Self.channelSend("ch-1"), Self.tokenSend(1)], answers: [Self.answer(500), Self.answer(200)],
            sync: Self.sync(channelsToRetire: ["ch-1"])
        )
        #expect(retried.retiredChannels.isEmpty)
        #expect(retried.targetRetries.map(\.target) == [.channel("ch-1")])
    }

    @Test func aChannelDeletionAcceptedOrNotFoundMarksTheChannelDeletedAndA5xxRetries() {
        let row = Self.row(kind: .message, target: .channel("ch-9"))
        let send = PreparedSend(target: .channel("ch-9"), request: .deleteChannel("ch-9"), priority: 10, note: "delete")
        let message = OutboxMessage.channelDelete(channelID: "ch-9", note: "delete")
        for answer in [Self.answer(204), Self.answer(404), Self.answer(400, .badChannelID)] {
            let plan = plan(row, sends: [send], answers: [answer], message: message)
            #expect(plan.deletedChannels == ["ch-9"], "\(answer.summary)")
            #expect(plan.row == .complete, "\(answer.summary)")
            #expect(plan.events.map(\.name) == [.channelDeleted])
        }
        let retried = plan(row, sends: [send], answers: [Self.answer(500)], message: message)
        #expect(retried.deletedChannels.isEmpty)
        #expect(retried.row == .retry(at: Self.now.addingTimeInterval(1), error: "500"))
    }

    @Test func noEventOrRecordOfThePlanCarriesTheDeviceToken() {
        let plan = plan(
            Self.row(), sends: [Self.tokenSend(1), Self.tokenSend(2)],
            answers: [Self.answer(410, .unregistered, timestamp: Self.now), Self.answer(403, .forbidden)], sync: Self.sync()
        )
        #expect(!String(describing: plan).contains(Self.deviceToken))
        let dead = plan.events.first { $0.name == .deadLetter }
        #expect(dead?.contextKey == "trip:1" && dead?.apnsID == "apns-1" && dead?.tokenID == 2 && dead?.outboxID == 7 && dead?.status == 403)
    }

    // MARK: Sending nothing

    @Test func aRowThatSendsNothingIsCompletedPostponedRetriedOrADeadLetter() {
        #expect(plan(Self.row(), unsent: .nothingToSend).row == .complete)
        let later = Self.now.addingTimeInterval(30)
        #expect(plan(Self.row(), unsent: .postponed(until: later, reason: "quiet")).row == .postpone(until: later, reason: "quiet"))
        // A busy database is not the push's fault: tried again after the row's next backoff.
        let busy = plan(Self.row(attempts: 2), unsent: .databaseUnavailable("rendering: database is locked"))
        #expect(busy.row == .retry(at: Self.now.addingTimeInterval(4), error: "rendering: database is locked"))
        #expect(busy.rowEvent?.name == .databaseBusy)
        let refused = plan(Self.row(), unsent: .unsendable("payload check refused rev 3"))
        #expect(refused.row == .deadLetter(reason: "payload check refused rev 3"))
        #expect(refused.rowEvent?.name == .deadLetter)
    }

    @Test func aRetryForADatabaseErrorKeepsTheMarkOfARowThatMayHaveBeenSent() {
        var takenBack = Self.row(kind: .message, target: .token(2), attempts: 1)
        takenBack.lastError = "lease of d expired"
        #expect(takenBack.mayHaveBeenSent)
        let busy = plan(takenBack, unsent: .databaseUnavailable("reading the start: database is locked"))
        #expect(busy.row == .retry(at: Self.now.addingTimeInterval(2), error: "may have been sent: reading the start: database is locked"))
        var retried = takenBack
        retried.lastError = "may have been sent: reading the start: database is locked"
        #expect(retried.mayHaveBeenSent && !retried.wasTakenBack)
        let again = plan(retried, unsent: .databaseUnavailable("reading the start: database is locked"))
        #expect(again.row == .retry(at: Self.now.addingTimeInterval(2), error: "may have been sent: reading the start: database is locked"))
    }

    @Test func aStartWhoseContextEndedIsCancelledNotCountedAndTheRowCompleted() {
        let plan = plan(Self.row(kind: .message, target: .token(2)), unsent: .startAfterTheEnd(startID: 5))
        #expect(
            plan.start == DispatchPlan.StartFinish(startID: 5, accepted: false, reason: "the context ended before the start went out", counted: false)
        )
        #expect(plan.row == .complete)
        #expect(plan.events.map(\.name) == [.startCancelled])
    }

    @Test func aMessageToATokenNoLongerActiveIsADeadLetterAndItsStartFails() {
        let start = plan(Self.row(kind: .message, target: .token(2)), unsent: .tokenInactive(startID: 5, note: "start rev 3 on device phone-1"))
        #expect(start.start?.accepted == false && start.start?.counted == false)
        #expect(start.row == .deadLetter(reason: "the token is no longer active: start rev 3 on device phone-1"))
        let alert = plan(Self.row(kind: .message, contextKey: nil, target: .token(2)), unsent: .tokenInactive(startID: nil, note: "notification 1"))
        #expect(alert.start == nil)
        #expect(alert.row == .deadLetter(reason: "the token is no longer active: notification 1"))
    }
}
