import Foundation
import LivelineDevices
import LivelineEngine
import LivelineModel
import LivelineShoppingModel
import LivelineStore
import Testing

/// Widget pushes end to end (`docs/engine.md`, "Widget pushes"): the phones' widget extensions
/// register their WidgetKit tokens through the SDK, a shopping change goes through the shopping
/// API, the engine's paced `content-changed` push through the outbox and the APNs client (HTTP/2 +
/// TLS) to the sandbox, and each widget reloads and shows the server's revision. The server runs
/// on the harness's manual clock, so the pacing interval passes by hand.
@Suite struct WidgetPushEndToEndTests {
    static let week = "2026-01-05"
    static let interval = WidgetPushes.defaultInterval

    /// A harness on the manual clock, and the household's shopping week's key.
    static func harness() throws -> (DeviceHarness, String) {
        let harness = try DeviceHarness(serverOnClock: true) { $0.quietChangeDebounce = 0 }
        return (harness, "shopping:\(harness.householdID):\(week)")
    }

    /// A phone on iOS 26 with a shopping widget showing `key`, once the server has its widget token.
    static func widgetPhone(_ id: String, key: String, in harness: DeviceHarness) async throws -> SimulatedDevice {
        let phone = await harness.phone(id, os: OSVersion(26, 0), widgets: [DeviceWidget(kind: "shopping", contextKeys: [key])])
        let token = try #require(phone.widgetToken)
        #expect(await harness.until { widgetTokens(of: harness).contains { $0.token == token && $0.widgetKinds == ["shopping"] } })
        return phone
    }

    /// The server's active widget tokens of the harness user.
    static func widgetTokens(of harness: DeviceHarness) -> [PushTokenRecord] {
        ((try? harness.app.store.tokens.activeTokens(userID: harness.userID)) ?? []).filter { $0.kind == .widgets }
    }

    /// Adds an item through the shopping API; the week's revision after it.
    static func add(_ label: String, harness: DeviceHarness) async throws -> Int {
        let app = harness.client(deviceID: "kitchen")
        _ = try await app.addShoppingItem(week: week, label: label, price: 1.0)
        return try #require(try harness.app.engine.revision(key: "shopping:\(harness.householdID):\(week)"))
    }

    /// The widget pushes the outbox still holds, due or leased.
    static func pendingWidgetPushes(_ harness: DeviceHarness) throws -> Int {
        try harness.app.store.database.read { transaction in
            try transaction.query("SELECT id FROM outbox WHERE idempotency_key LIKE 'widgets:%' AND status IN ('due', 'leased')").count
        }
    }

    @Test func aShoppingChangeReloadsTheWidgetOnEveryPhoneThatRegisteredAWidgetToken() async throws {
        let (harness, key) = try Self.harness()
        defer { harness.stop() }
        let phones = [
            try await Self.widgetPhone("dennis-phone", key: key, in: harness),
            try await Self.widgetPhone("dennis-ipad", key: key, in: harness),
        ]
        // iOS 18 has no WidgetKit pushes: no token, nothing sent to it.
        let old = await harness.phone("old-phone", os: OSVersion(18, 0), widgets: [DeviceWidget(kind: "shopping", contextKeys: [key])])
        #expect(old.widgetToken == nil && Self.widgetTokens(of: harness).count == 2)

        let rev = try await Self.add("Milch", harness: harness)
        #expect(await harness.until { phones.allSatisfy { $0.widget(kind: "shopping")?.shown[key] == rev } }, "\(phones.map { $0.messages() })")
        for phone in phones {
            #expect(phone.logged("widget shopping reloaded: shows rev \(rev)"))
            let accepted = harness.sandbox.accepted(token: try #require(phone.widgetToken))
            #expect(accepted.map(\.pushType) == ["widgets"])
            #expect(accepted.first?.topic == "\(harness.sandbox.bundleID).push-type.widgets")
        }
        #expect(old.widget(kind: "shopping")?.shown[key] == nil)
        // The context's delivery log (its dashboard timeline) has each widget push and APNs' answer.
        let attempts = try harness.app.store.deliveries.attempts(contextKey: key).filter { $0.note?.hasPrefix("widget push") == true }
        #expect(attempts.map(\.status) == [200, 200] && attempts.allSatisfy { $0.priority == 10 && $0.rev == nil })
    }

    @Test func fiftyChangesInAMinuteCostAtMostThePacedNumberOfWidgetPushes() async throws {
        let (harness, key) = try Self.harness()
        defer { harness.stop() }
        let phone = try await Self.widgetPhone("dennis-phone", key: key, in: harness)
        let token = try #require(phone.widgetToken)

        // 50 changes over a minute: the first push goes at once, the rest wait for one trailing push.
        let first = try await Self.add("item 0", harness: harness)
        #expect(await harness.until { phone.widget(kind: "shopping")?.shown[key] == first })
        // Its answer recorded before the clock moves on: a lease that ran out on the moved clock
        // would send it again (at least once, `docs/engine.md`).
        #expect(await harness.until { (try? Self.pendingWidgetPushes(harness)) == 0 })
        var last = first
        for index in 1..<50 {
            harness.clock.advance(by: 1.2)
            last = try await Self.add("item \(index)", harness: harness)
        }
        #expect(last == first + 49)
        // The first push's row is done once its answer is recorded; the trailing one waits.
        #expect(await harness.until { (try? Self.pendingWidgetPushes(harness)) == 1 }, "one trailing push waits for the interval")
        #expect(harness.sandbox.accepted(token: token).count == 1)

        // The interval passes: the trailing push goes out and the widget shows the last revision.
        harness.clock.advance(by: Self.interval)
        #expect(await harness.until(timeout: 20) { phone.widget(kind: "shopping")?.shown[key] == last }, "\(phone.messages())")
        #expect(await harness.until { (try? Self.pendingWidgetPushes(harness)) == 0 })
        // At most one push per interval: a minute of changes is 1 + ⌈60 s / interval⌉ pushes.
        let paced = 1 + Int((60 / Self.interval).rounded(.up))
        #expect(harness.sandbox.accepted(token: token).count == paced)
        #expect(!phone.logged("throttled"))
    }

    @Test func aWidgetTokenAPNsAnswers410IsRetiredAndPushedNoMore() async throws {
        let (harness, key) = try Self.harness()
        defer { harness.stop() }
        let phone = try await Self.widgetPhone("dennis-phone", key: key, in: harness)
        let token = try #require(phone.widgetToken)
        let stored = try #require(Self.widgetTokens(of: harness).first)

        // The app was deleted: APNs answers 410 from a moment after the token's registration.
        harness.clock.advance(by: 1)
        harness.sandbox.markUnregistered(token: token, at: harness.clock.now)
        harness.clock.advance(by: 1)
        _ = try await Self.add("Milch", harness: harness)
        #expect(await harness.until { (try? harness.app.store.tokens.record(id: stored.id))?.status == .invalid })
        #expect(Self.widgetTokens(of: harness).isEmpty)

        // Nothing more is enqueued for it, however long the widget would have waited.
        harness.clock.advance(by: Self.interval)
        _ = try await Self.add("Brot", harness: harness)
        #expect(try Self.pendingWidgetPushes(harness) == 0)
        #expect(phone.widget(kind: "shopping")?.shown[key] == nil)
    }
}
