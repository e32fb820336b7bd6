import Foundation
import LivelineDevices
import LivelineModel
import Testing

/// A scheduled start (`docs/api.md`, "Scheduled starts") through server → APNs client → sandbox →
/// simulated iPhone, on the manual clock the server and the phone share.
@Suite struct ScheduledStartDeviceTests {
    @Test func aStartThirtySecondsAheadShowsTheCardThenAndOnce() async throws {
        let harness = try DeviceHarness(serverOnClock: true)
        defer { harness.stop() }
        let phone = await harness.phone("phone-1")
        try harness.put("later", delay: 6)
        try harness.put("probe", delay: 0)
        let at = harness.clock.now.addingTimeInterval(30)
        let body = #"{"userIds":[\#(harness.userID)],"alert":{"title":"Your trip"},"at":"\#(at.formatted(.iso8601))"}"#
        let response = try harness.admin("POST", "/v1/contexts/trip:later/start", json: body)
        #expect((response.json?["starts"] as? [[String: Any]])?.first?["outcome"] as? String == "queued", "\(response.text)")

        // At T+29 s a start sent at once arrives; the scheduled one does not.
        harness.clock.advance(by: 29)
        #expect(try harness.start("probe") == ["queued"])
        #expect(await harness.until { phone.activity(contextKey: "trip:probe") != nil })
        #expect(phone.activity(contextKey: "trip:later") == nil)

        harness.clock.advance(by: 1)
        #expect(await harness.until { phone.activity(contextKey: "trip:later")?.updateToken != nil })
        #expect(phone.activity(contextKey: "trip:later")?.contentState.objectValue?["delay"] == .int(6))
        #expect(await harness.until { harness.outboxIsEmpty })
        #expect(phone.activities.filter { $0.contextKey == "trip:later" }.count == 1, "one card")
        let starts = try harness.app.store.starts.starts(contextKey: "trip:later")
        #expect(starts.count == 1 && starts[0].status == .sent && starts[0].updateTokenAt != nil)
    }
}
