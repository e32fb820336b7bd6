import Foundation
import LivelineEngine
import LivelineModel
import LivelinePush
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
}
