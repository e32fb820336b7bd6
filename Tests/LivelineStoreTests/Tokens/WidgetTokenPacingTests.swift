import Foundation
import LivelineModel
import LivelineStore
import Testing

/// The widget tokens' columns of `docs/engine.md`, "Widget pushes" (schema version 14), on both
/// backends: the kinds a token serves, and the pacing a device keeps across a new token.
struct WidgetTokenPacingTests {
    func widgets(_ user: UserRecord, token: String, kinds: [String]) -> TokenRegistration {
        TokenRegistration(
            householdID: user.householdID, userID: user.id, deviceID: "phone", kind: .widgets, environment: .sandbox, token: token,
            widgetKinds: kinds)
    }

    @Test(arguments: DatabaseFactory.all)
    func aWidgetTokenKeepsItsKindsAndADeviceKeepsItsPacingAcrossANewToken(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let ada = try store.makeUser("Ada")
            let eve = try store.makeUser("Eve", household: "Elsewhere")
            #expect(try store.tokens.register(widgets(ada, token: "aa11", kinds: ["transit", "shopping", "shopping"]), now: time(1)) == .created)
            #expect(try store.tokens.register(widgets(eve, token: "bb22", kinds: ["shopping"]), now: time(1)) == .created)
            let first = try store.database.write { try store.tokens.widgetTokens(householdID: ada.householdID, in: $0) }
            #expect(first.map(\.kinds) == [["shopping", "transit"]] && first.first?.lastPushAt == nil)
            #expect(try store.tokens.activeTokens(userID: ada.id).first?.widgetKinds == ["shopping", "transit"])

            let due = Date(timeIntervalSince1970: 1_765_000_000.123)
            try store.database.write { try store.tokens.setWidgetPushAt(id: first[0].id, due, in: $0) }
            #expect(try store.tokens.register(widgets(ada, token: "cc33", kinds: ["shopping"]), now: time(2)) == .replaced)
            let rotated = try store.database.write { try store.tokens.widgetTokens(householdID: ada.householdID, in: $0) }
            #expect(rotated.count == 1 && rotated[0].id != first[0].id && rotated[0].kinds == ["shopping"])
            #expect(rotated[0].lastPushAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == 1_765_000_000_123)
            let elsewhere = try store.database.write { try store.tokens.widgetTokens(householdID: eve.householdID, in: $0) }
            #expect(elsewhere.count == 1 && elsewhere[0].lastPushAt == nil)
        }
    }
}
