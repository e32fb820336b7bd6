import Foundation
import LivelineTestSupport
import Testing

/// The activity page's timeline shows the app's own activities as reported (`POST
/// /api/la/activity`; `docs/engine.md`, "App-reported activities"): pending until a date, active,
/// transient.
@Suite struct DashboardAppActivityTests {
    @Test func theAppsPendingAndTransientActivitiesAreOnTheActivityPage() throws {
        let (server, visitor, bearer, _) = try DashboardPagesTests.setUpWithUser()
        defer { server.stop() }
        try server.putTrip("trip:own", stop: "Hbf")
        let auth = ["Authorization": "Bearer \(bearer)"]
        let token = String(repeating: "6b", count: 32)
        let card = #""device_id":"iphone-a","context_key":"trip:own","attributes_type":"TripLiveActivityAttributes"}"#
        let registered = try server.request(
            "POST", "/api/apns/register", headers: auth, body: #"{"kind":"la-update","token":"\#(token)","# + card)
        #expect(registered.status == 200, "\(registered.text)")
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down)).formatted(.iso8601)
        let reports = [
            #"{"context_key":"trip:own","device_id":"iphone-b","state":"pending","starts_at":"\#(at)"}"#,
            #"{"context_key":"trip:own","device_id":"iphone-a","state":"active","style":"transient"}"#,
        ]
        for body in reports {
            let response = try server.request("POST", "/api/la/activity", headers: auth, body: body)
            #expect(response.status == 200, "\(response.text)")
        }
        let page = try visitor.get("/dashboard/activities/trip:own")
        #expect(page.status == 200)
        #expect(page.text.contains("<td>app's activity</td><td>iphone-b</td><td>pending until \(at)</td>"), "\(page.text)")
        #expect(page.text.contains("<td>app's activity</td><td>iphone-a</td><td>active · transient</td>"), "\(page.text)")
    }
}
