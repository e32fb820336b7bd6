import Foundation
import LivelineModel
import Testing
import LivelineStore

/// The registry rules of `docs/engine.md`, "Push tokens".
struct PushTokenRepositoryTests {
    /// A fan-out reads a context's tokens in pages by id (`docs/engine.md`, "Fan-out for a sync"):
    /// each page the next ids past the last one read, the pages together exactly the whole read,
    /// and a household's pages without another household's token of the same key.
    @Test(arguments: DatabaseFactory.all)
    func aContextsTokensReadInPagesAreTheWholeReadInIDOrder(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            let eve = try store.makeUser("Eve", household: "Elsewhere")
            for index in 0..<7 {
                let user = index == 3 ? eve : ada
                let registration = TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "phone-\(index)", kind: .update, environment: .production,
                    token: String(format: "%04x", index), contextKey: "trip:1")
                #expect(try store.tokens.register(registration, now: time(1)) == .created)
            }
            func read(_ household: HouseholdID?, after: PushTokenID? = nil, limit: Int? = nil) throws -> [UpdateTarget] {
                try store.database.read {
                    try store.tokens.updateTargets(
                        contextKey: "trip:1", environment: .production, householdID: household, after: after, limit: limit, in: $0)
                }
            }
            for household in [nil, ada.householdID] {
                let whole = try read(household)
                #expect(whole.count == (household == nil ? 7 : 6))
                #expect(whole.map(\.id.rawValue) == whole.map(\.id.rawValue).sorted())
                var pages: [[UpdateTarget]] = []
                var after: PushTokenID?
                while true {
                    let page = try read(household, after: after, limit: 2)
                    #expect(page.count <= 2)
                    pages.append(page)
                    guard page.count == 2, let last = page.last else { break }
                    after = last.id
                }
                #expect(pages.flatMap { $0 }.map(\.token) == whole.map(\.token), "household \(household.map { "\($0)" } ?? "none")")
                // 7 tokens: 2, 2, 2 and 1; 6 tokens: 2, 2, 2 and an empty page after the full one.
                #expect(pages.map(\.count) == (household == nil ? [2, 2, 2, 1] : [2, 2, 2, 0]))
            }
            #expect(try read(ada.householdID).contains { $0.token == "0003" } == false, "Eve's token is not Ada's household's")
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func registeringTheSameTokenAgainOnlyMovesItsRegistrationTime(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            var registration = TokenRegistration.alert(ada, device: "phone", token: "aaaa")
            #expect(try store.tokens.register(registration, now: time(1)) == .created)
            registration.frequentPushesEnabled = true
            #expect(try store.tokens.register(registration, now: time(2)) == .unchanged)
            let rows = try store.tokens.history(householdID: ada.householdID)
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(row.status == .active)
            #expect(row.slot == "device:phone")
            #expect(row.firstRegisteredAt == time(1))
            #expect(row.lastRegisteredAt == time(2))
            #expect(row.frequentPushesEnabled)
            #expect(row.endedAt == nil)
            #expect(try store.tokens.record(id: row.id) == row)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aNewTokenReplacesTheOldOneWhichStaysAsHistory(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "old"), now: time(1)) == .created)
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "new"), now: time(2)) == .replaced)
            let history = try store.tokens.history(householdID: ada.householdID)
            #expect(history.map(\.token) == ["new", "old"])
            #expect(history.map(\.status) == [.active, .replaced])
            #expect(history[1].endedAt == time(2))
            #expect(history[1].endReason == "replaced")
            #expect(try store.tokens.activeTokens(userID: ada.id).map(\.token) == ["new"])
            // The old token coming back replaces the new one again.
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "old"), now: time(3)) == .replaced)
            #expect(try store.tokens.activeTokens(userID: ada.id).map(\.token) == ["old"])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aTokenLivesInOneActiveSlot(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada", household: "One")
            let bob = try store.makeUser("Bob", household: "Two")
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "t1"), now: time(1)) == .created)
            // Same household, new device id (app reinstalled): the token moves.
            #expect(try store.tokens.register(.alert(ada, device: "phone-2", token: "t1"), now: time(2)) == .created)
            #expect(try store.tokens.activeTokens(householdID: ada.householdID).map(\.deviceID) == ["phone-2"])
            let moved = try store.tokens.history(householdID: ada.householdID).last
            #expect(moved?.status == .replaced)
            #expect(moved?.endReason == "moved")
            // Another household registering the same token never ends the first household's row:
            // nobody changes another household's data by knowing a token.
            #expect(try store.tokens.register(.alert(bob, device: "phone", token: "t1"), now: time(3)) == .created)
            #expect(try store.tokens.activeTokens(householdID: ada.householdID).map(\.deviceID) == ["phone-2"])
            #expect(try store.tokens.activeTokens(householdID: bob.householdID).map(\.token) == ["t1"])
            // A different kind with the same string is not the same token.
            let update = TokenRegistration(
                householdID: bob.householdID, userID: bob.id, deviceID: "phone", kind: .update, environment: .production,
                token: "t1", contextKey: "shopping:1"
            )
            #expect(try store.tokens.register(update, now: time(4)) == .created)
            #expect(try store.tokens.activeTokens(userID: bob.id).count == 2)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func sandboxAndProductionAreSeparateNamespaces(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "t", environment: .sandbox), now: time(1)) == .created)
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "t", environment: .production), now: time(2)) == .created)
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "u", environment: .sandbox), now: time(3)) == .replaced)
            let active = try store.tokens.activeTokens(userID: ada.id)
            #expect(Set(active.map { "\($0.environment.rawValue):\($0.token)" }) == ["sandbox:u", "production:t"])
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func liveActivityTokensAreKeyedByTypeAndContext(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            func register(_ kind: PushTokenKind, _ token: String, type: String? = nil, context: String? = nil) throws -> RegistrationOutcome {
                try store.tokens.register(
                    TokenRegistration(
                        householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: kind, environment: .production,
                        token: token, attributesType: type, contextKey: context
                    ), now: time(1))
            }
            #expect(try register(.pushToStart, "s1", type: "ShoppingAttributes") == .created)
            #expect(try register(.pushToStart, "s2", type: "TransitAttributes") == .created)
            #expect(try register(.pushToStart, "s3", type: "ShoppingAttributes") == .replaced)
            #expect(try register(.update, "u1", context: "shopping:1") == .created)
            #expect(try register(.update, "u2", context: "shopping:2") == .created)
            #expect(try register(.update, "u2", context: "shopping:2") == .unchanged)
            let slots = try store.tokens.activeTokens(userID: ada.id).map(\.slot).sorted()
            #expect(
                slots == [
                    "device:phone|context:shopping:1", "device:phone|context:shopping:2",
                    "device:phone|type:ShoppingAttributes", "device:phone|type:TransitAttributes",
                ])
            #expect { try register(.pushToStart, "s4") } throws: { ($0 as? StoreError)?.code == .invalidArgument }
            #expect { try register(.update, "u3") } throws: { ($0 as? StoreError)?.code == .invalidArgument }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func webPushIsKeyedByEndpoint(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            func subscription(_ endpoint: String, auth: String) -> String {
                WebPushSubscription(endpoint: endpoint, keys: .init(p256dh: "BP", auth: auth)).canonicalJSON
            }
            func register(_ token: String, device: String) throws -> RegistrationOutcome {
                try store.tokens.register(
                    TokenRegistration(
                        householdID: ada.householdID, userID: ada.id, deviceID: device, kind: .webPush, environment: .production,
                        token: token
                    ), now: time(1))
            }
            #expect(try register(subscription("https://push.example/a", auth: "k1"), device: "browser") == .created)
            #expect(try register(subscription("https://push.example/a", auth: "k2"), device: "other-tab") == .replaced)
            #expect(try register(subscription("https://push.example/b", auth: "k1"), device: "browser") == .created)
            #expect(
                try store.tokens.activeTokens(userID: ada.id).map(\.slot).sorted()
                    == ["endpoint:https://push.example/a", "endpoint:https://push.example/b"])
            #expect { try register("not json", device: "browser") } throws: { ($0 as? StoreError)?.code == .invalidArgument }
        }
    }

    @Test func slotPartsCannotForgeAnotherSlot() throws {
        func slot(device: String, type: String) throws -> String {
            try TokenRegistration(
                householdID: 1, userID: 1, deviceID: device, kind: .pushToStart, environment: .sandbox, token: "t",
                attributesType: type
            ).slot
        }
        #expect(try slot(device: "a|type:b", type: "c") != slot(device: "a", type: "b|type:c"))
        #expect(try slot(device: "a|type:b", type: "c") == "device:a%7Ctype:b|type:c")
    }

    @Test(arguments: DatabaseFactory.all)
    func unregisterTouchesOnlyTheCallersHousehold(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada", household: "One")
            let bob = try store.makeUser("Bob", household: "Two")
            try store.tokens.register(.alert(ada, device: "phone", token: "shared", environment: .sandbox), now: time(1))
            try store.tokens.register(.alert(bob, device: "phone", token: "shared", environment: .production), now: time(1))
            #expect(try store.tokens.unregister(token: "shared", householdID: bob.householdID, now: time(2)) == 1)
            #expect(try store.tokens.unregister(token: "shared", householdID: bob.householdID, now: time(3)) == 0)
            #expect(try store.tokens.unregister(token: "unknown", householdID: ada.householdID, now: time(3)) == 0)
            #expect(try store.tokens.activeTokens(householdID: ada.householdID).map(\.token) == ["shared"])
            let ended = try #require(try store.tokens.history(householdID: bob.householdID).first)
            #expect(ended.status == .deleted)
            #expect(ended.endedAt == time(2))
            #expect(ended.endReason == "unregistered")
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func markInvalidRespectsALaterRegistration(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            try store.tokens.register(.alert(ada, device: "phone", token: "t"), now: time(10))
            let id = try #require(try store.tokens.activeTokens(userID: ada.id).first?.id)
            // APNs saw the token die before the app registered it again: keep it.
            #expect(try !store.tokens.markInvalid(id: id, reason: "Unregistered", now: time(20), registeredBefore: time(5)))
            #expect(try store.tokens.markInvalid(id: id, reason: "Unregistered", now: time(20), registeredBefore: time(15)))
            #expect(try !store.tokens.markInvalid(id: id, reason: "BadDeviceToken", now: time(21)))
            let row = try #require(try store.tokens.record(id: id))
            #expect(row.status == .invalid)
            #expect(row.endReason == "Unregistered")
            #expect(row.endedAt == time(20))
            // Registering it again after that starts a fresh active row.
            #expect(try store.tokens.register(.alert(ada, device: "phone", token: "t"), now: time(30)) == .created)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func activeTokensAreListedPerUserAndHousehold(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            let bob = try store.makeUser("Bob")
            try store.tokens.register(.alert(ada, device: "ada-phone", token: "a"), now: time(1))
            try store.tokens.register(.alert(bob, device: "bob-phone", token: "b"), now: time(1))
            try store.tokens.register(.alert(bob, device: "bob-pad", token: "c"), now: time(1))
            #expect(try store.tokens.activeTokens(userID: ada.id).map(\.token) == ["a"])
            #expect(try store.tokens.activeTokens(userID: bob.id).map(\.deviceID) == ["bob-pad", "bob-phone"])
            #expect(try store.tokens.activeTokens(householdID: ada.householdID).map(\.token) == ["a", "c", "b"])
        }
    }
}
