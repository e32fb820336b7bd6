import Foundation
import LivelineTestSupport
import Testing

/// The activity page's timeline shows a scheduled start's time until it goes out
/// (`docs/api.md`, "Scheduled starts").
@Suite struct DashboardScheduledStartTests {
    @Test func aScheduledStartShowsItsTimeOnTheActivityPage() throws {
        let (server, visitor, bearer, user) = try DashboardPagesTests.setUpWithUser()
        defer { server.stop() }
        try server.putTrip("trip:later", stop: "Hbf")
        let token = String(repeating: "5a", count: 32)
        let registered = try server.request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
            body: #"{"kind":"la-pushToStart","token":"\#(token)","device_id":"iphone-a","attributes_type":"TripLiveActivityAttributes"}"#)
        #expect(registered.status == 200)
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down)).formatted(.iso8601)
        let started = try server.admin(
            "POST", "/v1/contexts/trip:later/start", json: #"{"userIds":[\#(user.id)],"alert":{"title":"Later"},"at":"\#(at)"}"#)
        #expect(started.status == 200, "\(started.text)")
        let page = try visitor.get("/dashboard/activities/trip:later")
        #expect(page.status == 200)
        #expect(page.text.contains("<td>push-to-start</td><td>iphone-a</td><td>scheduled for \(at)</td>"), "\(page.text)")
    }
}
