import Foundation
import LivelineModel
import Synchronization
import Testing
import LivelineStore

/// Many registrations at once never leave two active tokens in one slot, and never fail.
struct PushTokenConcurrencyTests {
    @Test(arguments: DatabaseFactory.all)
    func eightThreadsRegisteringOverlappingSlotsLeaveOneActiveRowPerSlot(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for index in 0..<200 {
                    // 10 devices × 2 environments; tokens repeat so that all three outcomes happen.
                    let device = "device-\(index % 10)"
                    let registration = TokenRegistration.alert(
                        ada, device: device, token: "token-\(device)-\((index + worker) % 3)",
                        environment: index.isMultiple(of: 2) ? .sandbox : .production
                    )
                    do {
                        _ = try store.tokens.register(registration, now: time(index))
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let active = try store.tokens.activeTokens(householdID: ada.householdID)
            let slots = active.map { "\($0.environment.rawValue)/\($0.slot)" }
            #expect(active.count == 10)
            #expect(Set(slots).count == active.count)
            let rows = try store.database.read { transaction in
                try transaction.query(
                    """
                    SELECT environment, kind, slot, count(*) AS n FROM push_tokens WHERE status = 'active'
                    GROUP BY household_id, environment, kind, slot HAVING count(*) > 1
                    """)
            }
            #expect(rows.isEmpty)
        }
    }

    /// The server and `liveline users add` are two processes on one file; two stores stand for them.
    @Test func twoStoresOnOneFileRegisterWithoutBusyErrors() throws {
        try TemporaryFolder.with { folder in
            let stores = [try Store.openSQLite(folder: folder), try Store.openSQLite(folder: folder)]
            let ada = try stores[0].makeUser("Ada")
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for index in 0..<100 {
                    do {
                        _ = try stores[worker % 2].tokens.register(
                            .alert(ada, device: "device-\(index % 5)", token: "t-\(index % 7)"), now: time(index)
                        )
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let active = try stores[1].tokens.activeTokens(householdID: ada.householdID)
            #expect(Set(active.map(\.slot)).count == active.count)
            #expect(Set(active.map(\.token)).count == active.count)
        }
    }
}
