import Foundation
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import Testing

/// A push-to-start whose dispatcher died after APNs accepted it and before the answer was
/// recorded (`docs/reliability.md`, "Crash loop"): the row comes back after its lease, and a
/// second start would open a second card on the device. It is not sent again once the device
/// answered it (registered the activity's update token); without an answer it waits one lease
/// for one, then goes out again.
@Suite struct StartTakenBackTests {
    /// The first dispatcher sent the start (APNs accepted it) and died before recording the
    /// answer; the lease has run out. The second dispatcher, on the same database, APNs and clock,
    /// takes over. Stop `first` when done.
    static func startSentByADispatcherThatDied() throws -> (first: EngineHarness, second: EngineHarness) {
        let first = try EngineHarness()
        let second = try EngineHarness(dispatcherID: "dispatcher-b", sharing: first)
        let start = try first.queueStart()
        #expect(start.outcomes.map(\.kind) == [.queued])
        first.sender.afterSend { first.faults.arm(failAt: 1) }  // the process dies before the record
        first.dispatcher.runOnce()
        first.sender.afterSend {}
        #expect(first.sender.devicePushes.count == 1)
        #expect(try first.rows().filter { $0.kind == .message }.map(\.status) == [.leased])
        first.clock.advance(by: 31)  // past the lease
        return (first, second)
    }

    /// The device's app registers the update token of the activity the start opened.
    static func deviceAnswers(_ harness: EngineHarness) throws {
        try harness.engine.registerToken(
            TokenRegistration(
                householdID: harness.householdID, userID: harness.userID, deviceID: "phone-0", kind: .update, environment: .sandbox,
                token: String(repeating: "ab", count: 32), attributesType: "TripLiveActivityAttributes", contextKey: EngineHarness.contextKey
            ))
    }

    /// The push-to-starts APNs got.
    static func starts(_ harness: EngineHarness) -> Int {
        harness.sender.devicePushes.filter { String(decoding: $0.payload, as: UTF8.self).contains(#""event":"start""#) }.count
    }

    static func startStatus(_ harness: EngineHarness) throws -> [StartRecord.Status] {
        try harness.store.starts.starts(contextKey: EngineHarness.contextKey).map(\.status)
    }

    @Test func aStartTheDeviceAnsweredIsNotSentAgainAfterTheLease() throws {
        let (first, second) = try Self.startSentByADispatcherThatDied()
        defer { first.stop() }
        try Self.deviceAnswers(first)
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1)
        #expect(try Self.startStatus(first) == [.sent])
        #expect(try first.rows().filter { $0.kind == .message }.map(\.status) == [.done])
        #expect(second.events("startAnswered").count == 1)
    }

    @Test func aStartWithoutAnAnswerWaitsOneLeaseForOneThenGoesOutAgain() throws {
        let (first, second) = try Self.startSentByADispatcherThatDied()
        defer { first.stop() }
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1, "not at once: the device may have it and answer when the server is back")
        let row = try #require(try first.rows().first { $0.kind == .message })
        #expect(row.status == .due && row.lastError?.contains("may have reached the device") == true, "\(row)")
        first.clock.advance(by: 29)
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1)
        first.clock.advance(by: 2)
        second.dispatcher.drain()
        #expect(Self.starts(first) == 2, "no answer within the lease: the start went out again (it never arrived)")
        #expect(try Self.startStatus(first) == [.sent])
        #expect(try first.rows().allSatisfy { $0.status == .done })
    }

    @Test func anAnswerThatComesWhileTheStartWaitsKeepsItFromGoingOutAgain() throws {
        let (first, second) = try Self.startSentByADispatcherThatDied()
        defer { first.stop() }
        second.dispatcher.drain()
        try Self.deviceAnswers(first)  // the app's registration, retried until the server was back
        first.clock.advance(by: 31)
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1)
        #expect(try Self.startStatus(first) == [.sent])
        #expect(try first.rows().filter { $0.kind == .message }.map(\.status) == [.done])
    }

    /// The start's record id.
    static func startID(_ harness: EngineHarness) throws -> Int {
        try #require(try harness.store.starts.starts(contextKey: EngineHarness.contextKey).first).id
    }

    /// A send that ended without an answer (status 0: the answer wait ran out, the connection was
    /// lost) may have reached APNs: not sent again after the retry's backoff, but one lease later,
    /// unless the device answers first.
    @Test func aStartSentWithoutAnAnswerWaitsOneLeaseForItsAnswer() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        _ = try harness.queueStart()
        harness.sender.script { _ in APNSResult(status: 0, transportError: "no answer within 10 s", outcome: .retry(newConnection: true)) }
        harness.dispatcher.drain()
        harness.sender.script { _ in ScriptedSender.accepted }
        #expect(Self.starts(harness) == 1)
        harness.clock.advance(by: 5)  // past the retry's backoff
        harness.dispatcher.drain()
        #expect(Self.starts(harness) == 1, "not after the backoff: APNs may have taken the first copy")
        let row = try #require(try harness.rows().first { $0.kind == .message })
        #expect(row.status == .due && row.lastError?.contains("may have reached the device") == true, "\(row)")
        try Self.deviceAnswers(harness)
        harness.clock.advance(by: 31)
        harness.dispatcher.drain()
        #expect(Self.starts(harness) == 1)
        #expect(try Self.startStatus(harness) == [.sent])
        #expect(try harness.rows().filter { $0.kind == .message }.map(\.status) == [.done])
    }

    @Test func aStartSentWithoutAnAnswerGoesOutAgainAfterALeaseWithoutOne() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        _ = try harness.queueStart()
        harness.sender.script { _ in APNSResult(status: 0, transportError: "lost with its connection", outcome: .retry(newConnection: true)) }
        harness.dispatcher.drain()
        harness.sender.script { _ in ScriptedSender.accepted }
        harness.clock.advance(by: 5)
        harness.dispatcher.drain()
        #expect(Self.starts(harness) == 1)
        harness.clock.advance(by: 31)
        harness.dispatcher.drain()
        #expect(Self.starts(harness) == 2, "no answer within the lease: sent again")
        #expect(try Self.startStatus(harness) == [.sent])
        #expect(try harness.rows().allSatisfy { $0.status == .done })
    }

    /// A database error while the taken-back start is prepared retries the row; the retry keeps
    /// the mark, so the next claim still waits for the device's answer.
    @Test func aDatabaseErrorBeforeTheCheckKeepsTheWait() throws {
        let (first, second) = try Self.startSentByADispatcherThatDied()
        defer { first.stop() }
        first.faults.failReads(of: "FROM la_starts WHERE id = $1")
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1)
        #expect(second.events("databaseBusy").count == 1)
        first.clock.advance(by: 5)  // past the retry's backoff
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1, "not at once: the mark survived the retry")
        let row = try #require(try first.rows().first { $0.kind == .message })
        #expect(row.status == .due && row.lastError?.contains("may have reached the device") == true, "\(row)")
    }

    /// An answer the first dispatcher recorded late (APNs accepted the start) keeps it from
    /// going out again, though the device has not answered.
    @Test func aStartAPNsAcceptedMeanwhileIsNotSentAgain() throws {
        let (first, second) = try Self.startSentByADispatcherThatDied()
        defer { first.stop() }
        second.dispatcher.drain()
        try first.store.starts.finish(id: try Self.startID(first), accepted: true, reason: nil, now: first.clock.now)
        first.clock.advance(by: 31)
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1)
        #expect(try Self.startStatus(first) == [.sent])
        #expect(try first.rows().filter { $0.kind == .message }.map(\.status) == [.done])
        #expect(second.events("startAnswered").count == 1)
    }

    @Test func aStartRetiredMeanwhileIsNotSent() throws {
        let (first, second) = try Self.startSentByADispatcherThatDied()
        defer { first.stop() }
        second.dispatcher.drain()
        try first.store.starts.finish(id: try Self.startID(first), accepted: false, reason: "refused", now: first.clock.now)
        first.clock.advance(by: 31)
        second.dispatcher.drain()
        #expect(Self.starts(first) == 1)
        #expect(try Self.startStatus(first) == [.failed])
        #expect(try first.rows().filter { $0.kind == .message }.map(\.status) == [.done])
        #expect(second.events("startCancelled").count == 1)
    }
}
