import Foundation
import LivelineModel
import LivelineStore
import Testing

/// The dashboard's reads across the tables (`OperationsReads`).
struct OperationsReadsTests {
    /// "Pushes of the last hour": every 2xx is accepted (APNs' 200, a push service's 201), a
    /// 4xx or 5xx refused, 0 unanswered; a broadcast channel's deletion (204, or APNs' refusal of
    /// it) is channel management, told apart from the pushes — a broadcast to the same channel
    /// is a push.
    @Test(arguments: DatabaseFactory.all)
    func outcomesTellAcceptedRefusedAndUnansweredPushesApartFromChannelDeletions(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            func record(_ kind: DeliveryTargetKind, rev: Int?, status: Int, reason: String? = nil, at seconds: Int) throws {
                try store.deliveries.record(
                    DeliveryAttempt(
                        outboxID: 1, contextKey: "shopping:1", rev: rev, targetKind: kind, target: kind == .channel ? "Y2hhbm5lbA==" : "7",
                        apnsID: nil, status: status, reason: reason, priority: 10, latencyMilliseconds: 1, attemptedAt: time(seconds)))
            }
            try record(.token, rev: 3, status: 200, at: 10)  // an update to a device
            try record(.token, rev: nil, status: 201, at: 20)  // a web push a push service took
            try record(.channel, rev: 3, status: 200, at: 30)  // a broadcast
            try record(.channel, rev: nil, status: 204, at: 40)  // the channel deleted after the end
            try record(.token, rev: 4, status: 410, reason: "Unregistered", at: 50)
            try record(.channel, rev: 4, status: 400, reason: "BadChannelId", at: 310)  // a broadcast refused
            try record(.token, rev: 4, status: 0, at: 320)
            try record(.channel, rev: nil, status: 404, reason: "BadChannelId", at: 330)  // a deletion of a channel APNs no longer has

            let outcomes = try OperationsReads(database: store.database).deliveryOutcomes(since: time(0), slotSeconds: 300)
            func count(deletion: Bool, _ verdict: DeliveryVerdict, slot: Int? = nil) -> Int {
                outcomes.filter { $0.channelDeletion == deletion && $0.verdict == verdict && (slot == nil || $0.slot == slot) }.map(\.count)
                    .reduce(0, +)
            }
            #expect(count(deletion: false, .accepted) == 3, "\(outcomes)")
            #expect(count(deletion: false, .refused) == 2, "\(outcomes)")
            #expect(count(deletion: false, .unanswered) == 1, "\(outcomes)")
            #expect(count(deletion: true, .accepted) == 1, "the 204 of a deletion is no refused push: \(outcomes)")
            #expect(count(deletion: true, .refused) == 1, "\(outcomes)")
            #expect(count(deletion: false, .refused, slot: 0) == 1 && count(deletion: false, .refused, slot: 1) == 1, "\(outcomes)")
            #expect(outcomes.map(\.count).reduce(0, +) == 8)
        }
    }

    @Test func everyTwoHundredIsAcceptedAndOnlyZeroIsNoAnswer() {
        for status in [200, 201, 202, 204] { #expect(DeliveryVerdict(status: status) == .accepted, "\(status)") }
        for status in [301, 400, 403, 404, 410, 413, 429, 500, 503] { #expect(DeliveryVerdict(status: status) == .refused, "\(status)") }
        #expect(DeliveryVerdict(status: 0) == .unanswered)
    }
}
