import Foundation
import LivelineDevices
import LivelinePushWire
import LivelineModel
import LivelineShoppingModel
import Testing

/// `docs/devices.md`, "Widgets", end to end: a WidgetKit push sent by hand through the server's APNs
/// client (HTTP/2 + TLS) to the sandbox reaches the phone's widget token; the widget reloads, its
/// timeline provider pulls the shopping context from the server through the SDK, and the widget
/// shows the revision — within its reload budget. The server's own paced push of the first change
/// (`WidgetPushEndToEndTests`) counts against it too.
@Suite struct WidgetEndToEndTests {
    @Test func aWidgetsPushReloadsTheWidgetWhichShowsTheServersRevision() async throws {
        let harness = try DeviceHarness()
        defer { harness.stop() }
        let key = "shopping:\(harness.householdID):2026-01-05"
        var rules = DeviceRules()
        rules.widgetReloadBudget = 3
        let phone = await harness.phone(
            "phone-widget", os: OSVersion(26, 0), rules: rules, widgets: [DeviceWidget(kind: "shopping", contextKeys: [key])])
        let token = try #require(phone.widgetToken)
        #expect(harness.sandbox.isActive(token: token), "the widget token is known to APNs before anyone sends to it")
        #expect(await harness.until { (try? harness.app.store.tokens.activeTokens(userID: harness.userID))?.contains { $0.token == token } == true })

        // The household's shopping week, changed through the shopping feature's own API.
        let app = harness.client(deviceID: "phone-widget")
        let add = { (label: String) async throws -> Int in
            _ = try await app.addShoppingItem(week: "2026-01-05", label: label, price: 1.5)
            guard case .snapshot(let snapshot) = try await app.pull(contextKey: key, sinceRev: nil) else { throw CancellationError() }
            return snapshot.rev
        }
        let widgets = { () async -> APNSResult in
            await harness.app.apns.send(.widgets(deviceToken: token, bundleID: harness.sandbox.bundleID))
        }
        // The server's own widget push for the first change; the next would wait its interval.
        let zero = try await add("Milch")
        #expect(await harness.until { phone.widget(kind: "shopping")?.shown[key] == zero }, "\(phone.messages())")
        let first = try await add("Brot")
        #expect(await widgets().status == 200)
        #expect(await harness.until { phone.widget(kind: "shopping")?.shown[key] == first }, "\(phone.messages())")
        #expect(phone.messages(key).contains("applied [\(key)]: widget shopping reloaded: shows rev \(first)"))

        let second = try await add("Eier")
        #expect(second > first)
        #expect(await widgets().status == 200)
        #expect(await harness.until { phone.logged("widget shopping reloaded: shows rev \(second)") }, "\(phone.messages())")

        // The budget of 3 is spent: APNs still answers 200, the phone reloads nothing.
        let third = try await add("Käse")
        #expect(await widgets().status == 200)
        #expect(await harness.until { phone.logged("widget shopping throttled: 3 reloads in the last 24 hours (budget 3)") })
        #expect(await harness.fleet.settle())
        #expect(phone.widget(kind: "shopping")?.shown[key] == second)
        #expect(!phone.logged("shows rev \(third)"))
        #expect(harness.sandbox.accepted(token: token).map(\.pushType) == ["widgets", "widgets", "widgets", "widgets"])

        // WidgetKit rotates the token: the old one is gone at APNs, the new one is the widget's.
        harness.fleet.rotateWidgetToken(device: "phone-widget")
        let rotated = try #require(phone.widgetToken)
        #expect(rotated != token && harness.sandbox.isActive(token: rotated))
        #expect(await widgets().status == 410)
        #expect(await harness.app.apns.send(.widgets(deviceToken: rotated, bundleID: harness.sandbox.bundleID)).status == 200)
        #expect(await harness.until { phone.log.filter { $0.message.hasPrefix("widget shopping throttled") }.count == 2 }, "one budget per widget")
    }
}
