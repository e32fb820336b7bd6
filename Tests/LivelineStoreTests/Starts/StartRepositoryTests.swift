import Foundation
import LivelineModel
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// Push-to-start bookkeeping: one start per context and device, the device budget, answers.
struct StartRepositoryTests {
    func startToken(_ store: Store, _ user: UserRecord, device: String) throws -> PushTokenRecord {
        try store.tokens.register(
            TokenRegistration(
                householdID: user.householdID, userID: user.id, deviceID: device, kind: .pushToStart, environment: .sandbox,
                token: String(repeating: "ab", count: 32) + device, attributesType: "TripLiveActivityAttributes"
            ), now: time(0))
        return try #require(try store.tokens.activeTokens(userID: user.id).first { $0.deviceID == device && $0.kind == .pushToStart })
    }

    func reserve(
        _ store: Store, _ key: String, _ token: PushTokenRecord, at seconds: Int, budget: Int = 8, scheduledAt: Int? = nil
    ) throws -> StartReservation {
        try store.database.write { transaction in
            try store.starts.reserve(
                contextKey: key, householdID: token.householdID, deviceID: token.deviceID, userID: token.userID, tokenID: token.id,
                viaChannel: false, scheduledAt: scheduledAt.map(time), now: time(seconds), budget: (budget, 3600), in: transaction
            )
        }
    }

    /// Scheduled starts count in the budget by when they go out, not when they were asked for.
    @Test(arguments: DatabaseFactory.all)
    func scheduledStartsCountInTheBudgetAtTheirTime(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let token = try startToken(store, try store.makeUser("Ada"), device: "phone")
            for index in 0..<4 { try store.makeContext("trip:\(index)") }
            let tomorrow = 86_400
            for index in 0..<2 {
                if case .reserved = try reserve(store, "trip:\(index)", token, at: 1, budget: 2, scheduledAt: tomorrow) {
                } else {
                    Issue.record("scheduled start \(index)")
                }
            }
            // Now: the two go out tomorrow, not in this hour.
            if case .reserved = try reserve(store, "trip:2", token, at: 2, budget: 2) {} else { Issue.record("a start now") }
            // Tomorrow, at their time: a third start in that hour is over the budget.
            guard case .overBudget = try reserve(store, "trip:3", token, at: tomorrow + 60, budget: 2) else {
                Issue.record("the third start in tomorrow's hour is over the budget")
                return
            }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aDeviceGetsOneStartPerContextWithinItsBudget(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let user = try store.makeUser("Ada")
            let token = try startToken(store, user, device: "phone")
            for index in 0..<3 { try store.makeContext("trip:\(index)") }
            guard case .reserved(let id) = try reserve(store, "trip:0", token, at: 1, budget: 2) else {
                Issue.record("the first start is reserved")
                return
            }
            #expect(try reserve(store, "trip:0", token, at: 2, budget: 2) == .alreadyStarted(.queued))
            try store.starts.finish(id: id, accepted: true, reason: nil, now: time(3))
            #expect(try reserve(store, "trip:0", token, at: 4, budget: 2) == .alreadyStarted(.sent))
            if case .reserved = try reserve(store, "trip:1", token, at: 5, budget: 2) {} else { Issue.record("second context") }
            guard case .overBudget(let reason) = try reserve(store, "trip:2", token, at: 6, budget: 2) else {
                Issue.record("the third start in the hour is over the budget")
                return
            }
            #expect(reason.contains("2 starts to this device"))
            // An hour later the budget is back, and the skipped start may be taken.
            if case .reserved = try reserve(store, "trip:2", token, at: 3700, budget: 2) {} else { Issue.record("budget back") }
            #expect(try store.starts.starts(contextKey: "trip:2").first?.status == .queued)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func anAnswerRecordsTheUpdateTokenAndClearsSuspicion(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let user = try store.makeUser("Ada")
            let token = try startToken(store, user, device: "phone")
            try store.makeContext("trip:1")
            guard case .reserved(let id) = try reserve(store, "trip:1", token, at: 1) else {
                Issue.record("the start is reserved")
                return
            }
            try store.starts.finish(id: id, accepted: true, reason: nil, now: time(2))
            #expect(try store.starts.unanswered(sentBefore: time(100)).map(\.id) == [id])
            #expect(try store.starts.markSuspect(id: id, now: time(100)))
            #expect(try store.tokens.markSuspect(id: token.id, reason: "no answer", now: time(100)))
            #expect(try store.tokens.suspectCount() == 1)

            // The engine answers the start when the device registers its update token (or a receipt).
            #expect(
                try store.write {
                    try store.starts.answered(contextKey: "trip:1", householdID: user.householdID, deviceID: "phone", now: time(200), in: $0)
                })
            try store.write { try store.tokens.clearStartSuspicion(householdID: user.householdID, deviceID: "phone", in: $0) }
            let start = try #require(try store.starts.starts(contextKey: "trip:1").first)
            #expect(start.updateTokenAt == time(200) && start.suspectAt == nil)
            #expect(try store.tokens.suspectCount() == 0)
            #expect(try store.starts.unanswered(sentBefore: time(1000)).isEmpty)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func devicesOfAnotherHouseholdNeverShareAStartOrABudget(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada", household: "A")
            let eve = try store.makeUser("Eve", household: "B")
            let adas = try startToken(store, ada, device: "phone")
            let eves = try startToken(store, eve, device: "phone")  // the same device id, chosen by another app install
            try store.makeContext("trip:1")
            if case .reserved = try reserve(store, "trip:1", adas, at: 1, budget: 1) {} else { Issue.record("Ada's start") }
            if case .reserved = try reserve(store, "trip:1", eves, at: 2, budget: 1) {} else { Issue.record("Eve's start is her own") }
            // Eve's answer answers Eve's start only.
            try store.write { try store.starts.answered(contextKey: "trip:1", householdID: eve.householdID, deviceID: "phone", now: time(3), in: $0) }
            let starts = try store.starts.starts(contextKey: "trip:1")
            #expect(starts.first { $0.householdID == eve.householdID }?.updateTokenAt == time(3))
            #expect(starts.first { $0.householdID == ada.householdID }?.updateTokenAt == nil)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func endingAContextCancelsItsQueuedStarts(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let user = try store.makeUser("Ada")
            let token = try startToken(store, user, device: "phone")
            try store.makeContext("trip:1")
            guard case .reserved = try reserve(store, "trip:1", token, at: 1) else {
                Issue.record("the start is reserved")
                return
            }
            try store.write {
                try store.starts.cancelQueued(contextKey: "trip:1", reason: "the context ended before the start went out", now: time(2), in: $0)
            }
            let start = try #require(try store.starts.starts(contextKey: "trip:1").first)
            #expect(start.status == .skipped && start.reason?.contains("ended before the start went out") == true)
        }
    }
}

extension StartRepositoryTests {
    /// Two instances reserving starts for one device at once, on PostgreSQL, with their locks held
    /// 0.4 s before each commit: the budget of one is counted and used once, not by both.
    @Test func aDevicesStartBudgetHoldsUnderConcurrentInstances() throws {
        let (postgres, drop) = try TestPostgres.freshDatabase()
        defer { drop() }
        let slow = SlowCommitDatabase(inner: postgres)
        let store = try Store.open(slow)
        let user = try store.makeUser("anna")
        try store.tokens.register(
            TokenRegistration(
                householdID: user.householdID, userID: user.id, deviceID: "phone", kind: .pushToStart, environment: .sandbox,
                token: String(repeating: "ab", count: 32), attributesType: "TransitActivityAttributes"), now: time(0))
        let tokenID = try #require(try store.tokens.activeTokens(userID: user.id).first?.id)
        try store.makeContext("trip:1")
        try store.makeContext("trip:2")
        slow.delay = 0.4
        let results = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                let reservation = try store.write { transaction in
                    try store.starts.reserve(
                        contextKey: "trip:\(index + 1)", householdID: user.householdID, deviceID: "phone", userID: user.id, tokenID: tokenID,
                        viaChannel: false, now: time(10), budget: (1, 3600), in: transaction)
                }
                results.withLock { $0.append("\(reservation)") }
            } catch {
                results.withLock { $0.append("error \(error)") }
            }
        }
        let all = results.withLock { $0 }
        #expect(all.filter { $0.hasPrefix("reserved") }.count == 1 && all.filter { $0.hasPrefix("overBudget") }.count == 1, "\(all)")
    }
}
