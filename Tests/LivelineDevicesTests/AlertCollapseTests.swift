import Foundation
import LivelineDevices
import LivelineSandbox
import Testing

/// Alert pushes with one `apns-collapse-id` are shown as one notification (the newer in place of
/// the older), as the notification center does (Apple, "Sending notification requests to APNs":
/// `apns-collapse-id`); without one, or with different ones, each is shown.
@Suite struct AlertCollapseTests {
    static func alert(_ title: String, collapseID: String?) -> AcceptedPush {
        AcceptedPush(
            apnsID: UUID().uuidString.lowercased(), pushType: "alert", topic: "dev.liveline.demo", priority: 10, expiration: nil,
            collapseID: collapseID, payload: Array(#"{"aps":{"alert":{"title":"\#(title)"}}}"#.utf8), receivedAt: Date(), token: "t",
            channelID: nil, connectionID: 1)
    }

    @Test func alertsWithOneCollapseIDAreShownAsOne() {
        let device = SimulatedDevice(DeviceConfiguration(id: "phone", userID: 1, householdID: 1), registry: .builtIn)
        device.receive(Self.alert("Kochen heute?", collapseID: "notify:7"))
        device.receive(Self.alert("Kochen heute?", collapseID: "notify:7"))
        #expect(device.notifications.map(\.title) == ["Kochen heute?"])
        #expect(device.log.contains { $0.message.contains("in place of the one with collapse id notify:7") })
        device.receive(Self.alert("Einkaufen", collapseID: "notify:8"))
        device.receive(Self.alert("Ohne", collapseID: nil))
        device.receive(Self.alert("Ohne", collapseID: nil))
        #expect(device.notifications.map(\.title) == ["Kochen heute?", "Einkaufen", "Ohne", "Ohne"])
    }
}
