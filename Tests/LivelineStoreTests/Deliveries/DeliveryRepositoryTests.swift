import Foundation
import LivelineModel
import Testing
import LivelineStore

/// The delivery log of `docs/engine.md`, "The transactional outbox and the dispatcher".
struct DeliveryRepositoryTests {
    static func attempt(
        _ key: String?, _ kind: DeliveryTargetKind = .token, _ target: String = "12", status: Int, reason: String? = nil, priority: Int = 10,
        at seconds: Int
    ) -> DeliveryAttempt {
        DeliveryAttempt(
            outboxID: 1, contextKey: key, rev: 3, targetKind: kind, target: target, apnsID: status == 0 ? nil : "ID-\(seconds)",
            status: status, reason: reason, priority: priority, latencyMilliseconds: 3.25, attemptedAt: time(seconds)
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

    /// The budget's ledger (`docs/engine.md`, "Budgets and priority"), read with the tokens a
    /// fan-out reads: a token's count is its context's priority-10 pushes APNs accepted since the
    /// time given — the same count the whole ledger has for it — and the channels' ledger holds
    /// only channels.
    @Test(arguments: DatabaseFactory.all)
    func eachTokensLedgerComesWithItAndCountsItsAcceptedPriority10PushesSince(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            for (device, token) in [("phone", "aa01"), ("pad", "bb02")] {
                let registration = TokenRegistration(
                    householdID: ada.householdID, userID: ada.id, deviceID: device, kind: .update, environment: .production,
                    token: token, contextKey: "trip:1")
                #expect(try store.tokens.register(registration, now: time(1)) == .created)
            }
            func read(since: Date?) throws -> [UpdateTarget] {
                try store.database.read {
                    try store.tokens.updateTargets(contextKey: "trip:1", environment: .production, householdID: nil, ledgerSince: since, in: $0)
                }
            }
            let targets = try read(since: nil)
            #expect(targets.map(\.token) == ["aa01", "bb02"])
            #expect(targets.map(\.priorityPushesAccepted) == [nil, nil])
            let phone = String(targets[0].id.rawValue)
            for delivery in [
                Self.attempt("trip:1", .token, phone, status: 200, priority: 10, at: 10),  // counted
                Self.attempt("trip:1", .token, phone, status: 200, priority: 10, at: 20),  // counted
                Self.attempt("trip:1", .token, phone, status: 200, priority: 10, at: 4),  // before `since`
                Self.attempt("trip:1", .token, phone, status: 200, priority: 5, at: 21),  // priority 5
                Self.attempt("trip:1", .token, phone, status: 429, priority: 10, at: 22),  // not accepted
                Self.attempt("trip:2", .token, phone, status: 200, priority: 10, at: 23),  // another context
                Self.attempt("trip:1", .channel, "Y2hhbm5lbA==", status: 200, priority: 10, at: 24),  // a channel
                Self.attempt("trip:1", .channel, phone, status: 200, priority: 10, at: 25),  // a channel whose id reads like the token's
            ] {
                try store.deliveries.record(delivery)
            }
            let counted = try read(since: time(5))
            #expect(counted.map(\.priorityPushesAccepted) == [2, 0])
            // What the whole ledger counts, the token read counts too.
            let ledger = try store.database.read { try store.deliveries.priorityLedger(contextKey: "trip:1", since: time(5), in: $0) }
            #expect(ledger == [.token(targets[0].id): 2, .channel("Y2hhbm5lbA=="): 1, .channel(phone): 1])
            let channels = try store.database.read {
                try store.deliveries.priorityLedger(contextKey: "trip:1", since: time(5), channelsOnly: true, in: $0)
            }
            #expect(channels == [.channel("Y2hhbm5lbA=="): 1, .channel(phone): 1])
            // One token alone (a retry's read) has its count as well.
            let one = try store.database.read {
                try store.tokens.updateTargets(
                    contextKey: "trip:1", environment: .production, householdID: ada.householdID, onlyID: targets[0].id, ledgerSince: time(5), in: $0)
            }
            #expect(one.map(\.priorityPushesAccepted) == [2])
        }
    }
}
