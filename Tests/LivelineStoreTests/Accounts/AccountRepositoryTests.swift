import Foundation
import Synchronization
import Testing
import LivelineStore

struct AccountRepositoryTests {
    @Test(arguments: DatabaseFactory.all)
    func theFirstUserCreatesTheHouseholdWithTheirLocale(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada", household: "Lovelace", locale: "en")
            let bob = try store.makeUser("Bob", household: "Lovelace", locale: "de")
            #expect(ada.householdID == bob.householdID)
            #expect(ada.householdName == "Lovelace")
            #expect(ada.createdAt == time(0))
            let household = try store.accounts.household(id: ada.householdID)
            #expect(household == HouseholdRecord(id: ada.householdID, name: "Lovelace", locale: "en", createdAt: time(0)))
            #expect(try store.accounts.members(householdID: ada.householdID) == [ada, bob])
            #expect(try store.accounts.user(id: bob.id) == bob)
            #expect(try store.accounts.user(id: 999) == nil)
            #expect(try store.accounts.household(id: 999) == nil)
            #expect(try store.accounts.members(householdID: 999) == [])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func usersAreOrderedByHouseholdThenID(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let a1 = try store.makeUser("A1", household: "A")
            let b1 = try store.makeUser("B1", household: "B")
            let a2 = try store.makeUser("A2", household: "A")
            #expect(try store.accounts.users() == [a1, a2, b1])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aSessionFindsItsUserByTokenHash(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada", tokenHash: "aa11")
            let session = try #require(try store.accounts.session(tokenHash: "aa11"))
            #expect(session.user == ada)
            #expect(session.createdAt == time(0))
            #expect(session.lastSeenAt == time(0))
            #expect(try store.accounts.session(tokenHash: "AA11") == nil)
            #expect(try store.accounts.session(tokenHash: "") == nil)

            #expect(try store.accounts.touchSession(id: session.id, now: time(60)))
            #expect(try store.accounts.session(tokenHash: "aa11")?.lastSeenAt == time(60))
            #expect(try !store.accounts.touchSession(id: 999, now: time(60)))

            try store.accounts.addSession(userID: ada.id, tokenHash: "bb22", now: time(5))
            #expect(try store.accounts.session(tokenHash: "bb22")?.user == ada)
            #expect { try store.accounts.addSession(userID: 999, tokenHash: "cc33", now: time(5)) } throws: {
                ($0 as? StoreError)?.code == .notFound
            }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aReusedTokenHashIsRefusedAndCreatesNothing(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            _ = try store.makeUser("Ada", household: "One", tokenHash: "same")
            #expect { try store.makeUser("Bob", household: "Two", tokenHash: "same") } throws: {
                ($0 as? StoreError)?.code == .constraint
            }
            let users = try store.accounts.users()
            #expect(users.map(\.name) == ["Ada"])
            #expect(try store.database.read { try $0.query("SELECT id FROM households") }.count == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func manyThreadsCreatingUsersShareOneHousehold(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for index in 0..<25 {
                    do {
                        _ = try store.makeUser("U\(worker)-\(index)", household: index.isMultiple(of: 2) ? "Even" : "Odd")
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let users = try store.accounts.users()
            #expect(users.count == 200)
            #expect(Set(users.map(\.householdName)) == ["Even", "Odd"])
            #expect(Set(users.map(\.householdID)).count == 2)
        }
    }
}
