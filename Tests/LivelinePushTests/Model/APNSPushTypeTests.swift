import Foundation
import LivelinePush
import LivelinePushWire
import Testing

struct APNSPushTypeTests {
    @Test func topicsCarryTheSuffixApplesTableGives() {
        let bundle = "dev.liveline.demo"
        #expect(APNSPushType.liveActivity.topic(bundleID: bundle) == "dev.liveline.demo.push-type.liveactivity")
        #expect(APNSPushType.alert.topic(bundleID: bundle) == bundle)
        #expect(APNSPushType.background.topic(bundleID: bundle) == bundle)
        #expect(APNSPushType.voip.topic(bundleID: bundle) == "dev.liveline.demo.voip")
        #expect(APNSPushType.complication.topic(bundleID: bundle) == "dev.liveline.demo.complication")
        #expect(APNSPushType.widgets.topic(bundleID: bundle) == "dev.liveline.demo.push-type.widgets")
        #expect(APNSPushType.location.topic(bundleID: bundle) == "dev.liveline.demo.location-query")
        #expect(APNSPushType.pushToTalk.topic(bundleID: bundle) == "dev.liveline.demo.voip-ptt")
        #expect(APNSPushType.fileProvider.topic(bundleID: bundle) == "dev.liveline.demo.pushkit.fileprovider")
        #expect(APNSPushType.controls.topic(bundleID: bundle) == "dev.liveline.demo.push-type.controls")
    }

    @Test func aLiveActivityNotificationHasTheRightHeaders() {
        let push = APNSNotification.liveActivity(deviceToken: "ab", bundleID: "b", payload: [1], priority: .considerPower, expiration: .immediately)
        #expect(push.pushType == .liveActivity)
        #expect(push.topic == "b.push-type.liveactivity")
        #expect(push.priority.rawValue == 5)
        #expect(push.expiration?.seconds == 0)
        #expect(push.apnsID == push.apnsID.lowercased() && push.apnsID.count == 36)
    }

    @Test func aWidgetsNotificationHasApplesTopicAndBody() throws {
        let push = APNSNotification.widgets(deviceToken: "ab", bundleID: "b")
        #expect(push.pushType == .widgets && push.topic == "b.push-type.widgets")
        #expect(push.priority == .immediate && push.expiration == nil)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: [String: Bool]])
        #expect(body == ["aps": ["content-changed": true]])
    }
}
