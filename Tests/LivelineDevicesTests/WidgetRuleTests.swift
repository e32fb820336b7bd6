import Foundation
import LivelineClient
import LivelineDevices
import LivelinePushWire
import LivelineSandbox
import LivelineTestSupport
import Testing

/// `docs/devices.md`, "Widgets": WidgetKit's rules on a simulated iPhone, decided without a network
/// (pushes handed to the device as the sandbox would have accepted them).
@Suite struct WidgetRuleTests {
    static let shopping = DeviceWidget(kind: "shopping", contextKeys: ["shopping:1:2026-01-05"])
    static let trip = DeviceWidget(kind: "trip", contextKeys: ["trip:42"])

    static func phone(
        os: OSVersion = OSVersion(26, 0), widgets: [DeviceWidget] = [shopping, trip], rules: DeviceRules = DeviceRules(),
        clock: ManualClock = ManualClock()
    ) -> SimulatedDevice {
        SimulatedDevice(
            DeviceConfiguration(id: "phone", userID: 1, householdID: 1, os: os, widgets: widgets), rules: rules, registry: .builtIn,
            clock: clock.function)
    }

    static func push(
        to token: String?, body: [UInt8] = APNSNotification.widgetsPayload, priority: Int = 10, channelID: String? = nil
    ) -> AcceptedPush {
        AcceptedPush(
            apnsID: UUID().uuidString.lowercased(), pushType: "widgets", topic: "dev.liveline.demo.push-type.widgets", priority: priority,
            expiration: nil, collapseID: nil, payload: body, receivedAt: Date(), token: token, channelID: channelID, connectionID: 1)
    }

    /// The kinds of the widgets the actions reload, in order.
    static func reloaded(_ actions: [AppAction]) -> [String] {
        actions.compactMap { if case .reloadWidget(let kind) = $0 { kind } else { nil } }
    }

    static func registrations(_ actions: [AppAction]) -> [WidgetPushRegistration] {
        actions.compactMap { if case .registerWidgets(let registration) = $0 { registration } else { nil } }
    }

    @Test func aWidgetPushTokenNeedsIOS26AndAWidget() throws {
        #expect(Self.phone(os: OSVersion(18, 0)).widgetToken == nil)
        #expect(Self.registrations(Self.phone(os: OSVersion(18, 0)).launchActions()).isEmpty)
        #expect(Self.phone(widgets: []).widgetToken == nil)

        let phone = Self.phone(widgets: [Self.trip, Self.shopping])
        let token = try #require(phone.widgetToken)
        #expect(phone.tokens.contains(token))
        #expect(Self.registrations(phone.launchActions()) == [WidgetPushRegistration(hexToken: token, kinds: ["shopping", "trip"])])
        // Drawn last: a device's other tokens are the same with or without widgets.
        let plain = Self.phone(widgets: [])
        #expect(phone.alertToken == plain.alertToken && phone.startTokens == plain.startTokens)
    }

    @Test func aContentChangedPushReloadsEveryWidget() throws {
        let phone = Self.phone()
        let token = try #require(phone.widgetToken)
        let actions = phone.receive(Self.push(to: token, priority: 5))
        #expect(Self.reloaded(actions) == ["shopping", "trip"])
        #expect(phone.widgets.allSatisfy { $0.reloads.count == 1 && $0.shown.isEmpty }, "nothing is shown before the provider read it")
        #expect(phone.log.contains { $0.message == "widget trip: a push reloads its timeline (priority 5)" })
    }

    @Test func pushesWidgetKitDoesNotTakeReloadNothing() throws {
        let phone = Self.phone()
        let token = try #require(phone.widgetToken)
        let cases: [(AcceptedPush, String)] = [
            (Self.push(to: token, body: Array(#"{"aps":{"content-changed":false}}"#.utf8)), "no aps.content-changed: true"),
            (Self.push(to: token, body: Array(#"{"aps":{}}"#.utf8)), "no aps.content-changed: true"),
            (Self.push(to: phone.alertToken), "the token is not the widget extension's push token"),
            (Self.push(to: nil, channelID: "AAAAAAAAAAAAAAAAAAAAAA=="), "widgets cannot be updated by a broadcast push"),
        ]
        for (push, reason) in cases {
            #expect(phone.receive(push).isEmpty)
            #expect(phone.log.last?.verdict == .dropped && phone.log.last?.message.hasPrefix(reason) == true, "\(phone.log.last?.message ?? "")")
        }
        #expect(phone.widgets.allSatisfy { $0.reloads.isEmpty })

        let old = Self.phone(os: OSVersion(18, 0))
        #expect(old.receive(Self.push(to: old.alertToken)).isEmpty)
        #expect(old.log.last?.message == "WidgetKit pushes need iOS 26; this device runs 18.0")
    }

    @Test func beyondItsBudgetAWidgetIsThrottledUntilTheWindowMovesOn() throws {
        let clock = ManualClock()
        var rules = DeviceRules()
        rules.widgetReloadBudget = 2
        let phone = Self.phone(widgets: [Self.shopping], rules: rules, clock: clock)
        let token = try #require(phone.widgetToken)
        #expect(Self.reloaded(phone.receive(Self.push(to: token))) == ["shopping"])
        clock.advance(by: 3600)
        #expect(Self.reloaded(phone.receive(Self.push(to: token, priority: 5))) == ["shopping"], "every priority counts")
        clock.advance(by: 3600)
        #expect(phone.receive(Self.push(to: token)).isEmpty)
        #expect(phone.log.last?.verdict == .dropped)
        #expect(phone.log.last?.message == "widget shopping throttled: 2 reloads in the last 24 hours (budget 2)")
        // 24 hours after the first reload one place is free again, and only one.
        clock.advance(by: 22 * 3600)
        #expect(Self.reloaded(phone.receive(Self.push(to: token))) == ["shopping"])
        #expect(phone.receive(Self.push(to: token)).isEmpty)
        #expect(phone.widget(kind: "shopping")?.reloads.count == 2)
    }

    @Test func theWidgetShowsTheNewestRevisionItRead() {
        let phone = Self.phone(widgets: [Self.shopping])
        let key = "shopping:1:2026-01-05"
        phone.showInWidget(kind: "shopping", contextKey: key, rev: 3)
        #expect(phone.log.last?.description == "applied [\(key)]: widget shopping reloaded: shows rev 3")
        phone.showInWidget(kind: "shopping", contextKey: key, rev: 2)
        #expect(phone.widget(kind: "shopping")?.shown == [key: 3], "an older read never rolls the widget back")
        #expect(phone.log.last?.message == "widget shopping reloaded: keeps rev 3 (read rev 2)")
        phone.showInWidget(kind: "shopping", contextKey: key, rev: 4, ended: true)
        #expect(phone.widget(kind: "shopping")?.shown == [key: 4])
        #expect(phone.log.last?.message == "widget shopping reloaded: shows rev 4 (ended)")
    }

    @Test func theDeviceFileDescribesWidgetsAndTheirBudget() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widget-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func load(_ json: String) throws -> DeviceFile {
            let url = folder.appendingPathComponent("devices.json")
            try Data(json.utf8).write(to: url)
            return try DeviceFile.load(url, registry: .builtIn)
        }
        let file = try load(
            #"{"rules":{"widgetReloadBudget":7},"devices":[{"id":"p","userId":1,"householdId":1,"os":"26.0","widgets":[{"kind":"shopping","contextKeys":["shopping:1:2026-01-05"]}]}]}"#
        )
        #expect(file.deviceRules.widgetReloadBudget == 7)
        #expect(file.configurations.first?.widgets == [Self.shopping])

        let twice =
            #"{"devices":[{"id":"p","userId":1,"householdId":1,"widgets":[{"kind":"a","contextKeys":["x"]},{"kind":"a","contextKeys":["y"]}]}]}"#
        #expect(throws: DeviceFileError.self) { try load(twice) }
        do {
            _ = try load(#"{"devices":[{"id":"p","userId":1,"householdId":1,"widgets":[{"kind":"a","contextKeys":[]}]}]}"#)
            Issue.record("a widget without contexts was taken")
        } catch let error as DeviceFileError {
            #expect(error.description.hasSuffix("devices[0].widgets[0].contextKeys: expected the context keys the widget shows, at least one"))
        }
    }
}
