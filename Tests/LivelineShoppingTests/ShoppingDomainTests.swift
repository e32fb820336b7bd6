import Foundation
import LivelineAPI
import LivelineEngine
import LivelineModel
import LivelineShopping
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// The shopping domain on a real SQLite file: items, the story, presence, the card's state.
@Suite struct ShoppingDomainTests {
    final class Fixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-shopping-\(UUID().uuidString)")
        let store: Store
        let domain: ShoppingDomain
        let week = ShoppingWeek("2026-01-05")!
        let anna: UserRecord
        let ben: UserRecord
        var now = Date(timeIntervalSince1970: 1_767_600_000)

        init(locale: String = "de") throws {
            store = try TestBackend.openStore(folder: folder, features: [ShoppingFeature().featureMigrations])
            domain = ShoppingDomain(door: EngineDoor(store: store, clock: { Date() }))
            anna = try store.accounts.createUser(
                household: "Fisch", name: "Anna", avatarTint: "coral", emoji: "🐠", locale: locale, tokenHash: "a", now: now)
            ben = try store.accounts.createUser(
                household: "Fisch", name: "Ben", avatarTint: "azure", emoji: "🐟", locale: locale, tokenHash: "b", now: now)
        }

        var key: String { week.contextKey(householdID: anna.householdID) }

        func state() throws -> ShoppingActivityAttributes.ContentState {
            let source = ShoppingSnapshotSource(domain: domain) { [now] in now }
            return try store.database.read { transaction in
                try source.state(of: try #require(try store.contexts.context(key: key, in: transaction)), in: transaction)
            }
        }

        func stop() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func weeksAreISOMondays() {
        #expect(ShoppingWeek("2026-01-05")?.monday == "2026-01-05")
        for bad in ["2026-01-06", "2026-02-30", "2026-1-5", "05.01.2026", "2026-01-05T00:00:00Z", ""] { #expect(ShoppingWeek(bad) == nil, "\(bad)") }
        #expect(ShoppingWeek("2026-01-05")?.contextKey(householdID: 7) == "shopping:7:2026-01-05")
        for bad in ["1900-02-26x", "2026-01-0５", "+026-01-05", "2026-00-05", "2026-13-07", "0000-01-03"] {
            #expect(ShoppingWeek(bad) == nil, "\(bad)")
        }
    }

    @Test func everyDayOfFiftyYearsIsAMondayExactlyWhenFoundationsCalendarSaysSo() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var date = calendar.date(from: DateComponents(year: 1996, month: 1, day: 1))!
        let end = calendar.date(from: DateComponents(year: 2046, month: 1, day: 1))!
        var mondays = 0
        while date < end {
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let text = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            let isMonday = parts.weekday == 2
            #expect((ShoppingWeek(text) != nil) == isMonday, "\(text)")
            if isMonday { mondays += 1 }
            date = calendar.date(byAdding: .day, value: 1, to: date)!
        }
        #expect(mondays == 2609)
        // Days that do not exist are refused whatever their weekday would be.
        for bad in ["2025-02-29", "2100-02-29", "2026-04-31", "2026-06-31"] { #expect(ShoppingWeek(bad) == nil, "\(bad)") }
        #expect(ShoppingWeek("2000-02-29") == nil && ShoppingWeek("2028-02-29") == nil, "leap days, not Mondays")
        #expect(ShoppingWeek("2000-02-28") != nil && ShoppingWeek("2044-02-29") != nil, "Mondays (the second a leap day)")
    }

    @Test func theCardCountsPricesTellsTheStoryAndListsWhatIsNext() throws {
        let f = try Fixture()
        defer { f.stop() }
        let milk = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Milch", price: 1.5, now: f.now)
        _ = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Brot", price: nil, now: f.now)
        let eggs = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Eier", price: 2.25, now: f.now)
        _ = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Käse", price: 3.1, now: f.now)
        f.now += 60
        let checked = try #require(
            try f.domain.updateItem(
                id: milk.item.id, householdID: f.anna.householdID, actor: f.ben.id, done: true, label: nil, price: nil, position: nil, now: f.now))
        #expect(checked.rev == 5 && checked.item.done)

        let state = try f.state()
        #expect(state.open == 3 && state.done == 1 && state.total == 4)
        #expect(state.estEur == 5.35 && state.estPriced == 2, "Eier 2.25 + Käse 3.10; Brot has no price")
        #expect(state.nextOpen.map(\.label) == ["Brot", "Eier", "Käse"])
        #expect(
            state.lastEventText == "Ben hat Milch eingepackt" && state.lastActorUserId == f.ben.id.rawValue && state.lastActorAvatarTint == "azure")
        #expect(state.updatedAt == "2026-01-05 08:01:00")
        #expect(state.rev == 5 && state.ended == nil)

        _ = try f.domain.removeItem(id: eggs.item.id, householdID: f.anna.householdID, actor: f.anna.id, now: f.now)
        #expect(try f.state().lastEventText == "Anna hat Eier entfernt")
        #expect(try f.domain.removeItem(id: eggs.item.id, householdID: f.anna.householdID, actor: f.anna.id, now: f.now) == nil)
        let stranger = try f.store.accounts.createUser(
            household: "Other", name: "Olga", avatarTint: "mint", emoji: "🦊", locale: "en", tokenHash: "o", now: f.now)
        #expect(
            try f.domain.updateItem(
                id: milk.item.id, householdID: stranger.householdID, actor: stranger.id, done: false, label: nil, price: nil, position: nil,
                now: f.now) == nil, "another household's item is not found")
    }

    @Test func theStoryIsInTheHouseholdsLanguage() throws {
        let f = try Fixture(locale: "en")
        defer { f.stop() }
        let item = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Milk", price: nil, now: f.now)
        #expect(try f.state().lastEventText == "Anna added Milk")
        _ = try f.domain.updateItem(
            id: item.item.id, householdID: f.anna.householdID, actor: f.ben.id, done: true, label: nil, price: nil, position: nil, now: f.now)
        _ = try f.domain.updateItem(
            id: item.item.id, householdID: f.anna.householdID, actor: f.ben.id, done: false, label: nil, price: nil, position: nil, now: f.now)
        #expect(try f.state().lastEventText == "Ben put Milk back")
    }

    @Test func aMutationRefreshesAnActiveSessionButNeverCreatesOne() throws {
        let f = try Fixture()
        defer { f.stop() }
        _ = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, label: "Milch", price: nil, now: f.now)
        #expect(try f.state().activeShoppers.isEmpty, "adding from home does not make Ben a shopper")
        #expect(try !f.domain.heartbeat(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, now: f.now))

        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: f.now)
        #expect(try f.state().activeShoppers.map(\.name) == ["Anna"])
        // 14 minutes later Anna checks something off: that keeps her in the shop for another 15.
        f.now += 14 * 60
        _ = try f.domain.addItem(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, label: "Brot", price: nil, now: f.now)
        f.now += 14 * 60
        #expect(try f.domain.expireSessions(now: f.now) == 0)
        #expect(try f.state().activeShoppers.map(\.name) == ["Anna"])
        // Then her heartbeat lapses: the expiry is a change of the card.
        let rev = try f.state().rev
        f.now += 16 * 60
        #expect(try f.domain.expireSessions(now: f.now) == 1)
        #expect(try f.state().activeShoppers.isEmpty && f.state().rev == rev + 1)
    }

    @Test func whenTheLastShopperLeavesTheCardEndsAndANewSessionStartsANewOne() throws {
        let f = try Fixture()
        defer { f.stop() }
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: f.now)
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, now: f.now + 1)
        #expect(try f.state().activeShoppers.map(\.name) == ["Anna", "Ben"])
        #expect(try f.domain.endSession(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: f.now + 2)?.finished == false)
        #expect(
            try f.domain.endSession(week: f.week, householdID: f.anna.householdID, actor: f.anna.id, now: f.now + 3) == nil, "not shopping any more")
        let last = try #require(try f.domain.endSession(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, now: f.now + 4))
        #expect(last.finished)
        #expect(try f.store.contexts.context(key: f.key)?.state == .ended)
        #expect(try f.state().ended == true)
        try f.domain.startSession(week: f.week, householdID: f.anna.householdID, actor: f.ben.id, now: f.now + 100)
        let context = try #require(try f.store.contexts.context(key: f.key))
        #expect(context.state == .active && context.rev > last.rev && context.startedAt == f.now + 100)
    }

    @Test func concurrentChangesLoseNothingAndTheRevCountsThemAll() throws {
        let f = try Fixture()
        defer { f.stop() }
        let now = f.now
        let (domain, week, household, anna, ben) = (f.domain, f.week, f.anna.householdID, f.anna.id, f.ben.id)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            do {
                let added = try domain.addItem(week: week, householdID: household, actor: anna, label: "Item \(index)", price: 1, now: now)
                if index.isMultiple(of: 2) {
                    _ = try domain.updateItem(
                        id: added.item.id, householdID: household, actor: ben, done: true, label: nil, price: nil, position: nil, now: now)
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        let lost = failures.withLock { $0 }
        #expect(lost == 0)
        let state = try f.state()
        #expect(state.total == 20 && state.done == 10 && state.open == 10 && state.estEur == 10)
        #expect(state.rev == 30, "20 additions and 10 check-offs")
        #expect(Set(try f.domain.items(week: f.week, householdID: f.anna.householdID).map(\.position)).count == 20, "every item its own position")
    }
}
