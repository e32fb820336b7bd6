import Foundation
import Testing
import LivelineStore

/// The delivery log of `docs/engine.md`, "The transactional outbox and the dispatcher".
struct DeliveryRepositoryTests {
    static func attempt(_ key: String?, status: Int, reason: String?, at seconds: Int) -> DeliveryAttempt {
        DeliveryAttempt(
            outboxID: 1, contextKey: key, rev: 3, targetKind: .token, target: "12", apnsID: status == 0 ? nil : "ID-\(seconds)",
            status: status, reason: reason, priority: 10, latencyMilliseconds: 3.25, attemptedAt: time(seconds)
        )
    }

    @Test(arguments: DatabaseFactory.all)
    func attemptsReadBackNewestFirstPerContext(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let first = Self.attempt("trip:1", status: 200, reason: nil, at: 1)
            var second = Self.attempt("trip:1", status: 0, reason: nil, at: 2)
            second.targetKind = .channel
            second.target = "Y2hhbm5lbA=="
            second.priority = 5
            second.note = "priority 5: budget used"
            let firstID = try store.deliveries.record(first)
            let secondID = try store.write { try store.deliveries.record(second, in: $0) }
            try store.deliveries.record(Self.attempt("trip:2", status: 200, reason: nil, at: 3))
            var expectedFirst = first
            expectedFirst.id = firstID
            var expectedSecond = second
            expectedSecond.id = secondID
            #expect(try store.deliveries.attempts(contextKey: "trip:1") == [expectedSecond, expectedFirst])
            #expect(try store.deliveries.attempts(contextKey: "trip:1", limit: 1) == [expectedSecond])
            #expect(try store.deliveries.attempts(contextKey: "trip:9").isEmpty)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func countsGroupByStatusAndReason(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            for (index, (status, reason)) in [
                (200, nil), (200, nil), (410, "Unregistered"), (429, "TooManyRequests"),
                (429, "TooManyRequests"), (0, nil), (400, "BadDeviceToken"),
            ].enumerated() {
                try store.deliveries.record(Self.attempt("trip:\(index % 2)", status: status, reason: reason, at: index))
            }
            #expect(
                try store.deliveries.countsByStatusAndReason() == [
                    DeliveryCount(status: 0, reason: nil, count: 1),
                    DeliveryCount(status: 200, reason: nil, count: 2),
                    DeliveryCount(status: 400, reason: "BadDeviceToken", count: 1),
                    DeliveryCount(status: 410, reason: "Unregistered", count: 1),
                    DeliveryCount(status: 429, reason: "TooManyRequests", count: 2),
                ])
            #expect(try store.deliveries.deleteAttempts(before: time(3)) == 3)
            #expect(try store.deliveries.countsByStatusAndReason().map(\.count).reduce(0, +) == 4)
        }
    }
}
