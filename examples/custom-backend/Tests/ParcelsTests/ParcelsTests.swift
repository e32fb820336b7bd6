import Foundation
import Liveline
import LivelineSandbox
import LivelineTestSupport
import LivelineTesting
import Parcels
import Testing

/// The backend end to end: its own route, table and contract beside the built-in features, on a
/// real server with the in-process APNs sandbox.
@Suite struct ParcelsTests {
    @Test func aScanReachesTheParcelsLiveActivityCheckedAgainstItsOwnType() async throws {
        let server = try TestServer(features: Assembly.features + [ParcelsFeature()]) { $0.minimumPushInterval = 0 }
        defer { server.stop() }
        #expect(server.app.features == ["shopping", "cooksuggest", "transit", "parcels"])
        let (_, bearer) = try server.addUser(household: "Home", name: "Ada")
        let sandbox = try #require(server.sandbox)

        // The app registers its activity's update token for the parcel's context.
        let token = String(repeating: "7a", count: 32)
        let registered = try server.request(
            "POST", "/api/apns/register", token: bearer,
            json: #"{"kind":"la-update","token":"\#(token)","device_id":"phone","context_key":"parcel:P-7"}"#)
        #expect(registered.status == 200 || registered.status == 201, "\(registered.text)")

        // Two scans: the second's state reaches the phone, with the context's revision.
        #expect(try server.request("POST", "/api/parcels/P-7/scan", token: bearer, json: #"{"stops_away":4}"#).status == 200)
        let second = try server.request("POST", "/api/parcels/P-7/scan", token: bearer, json: #"{"stops_away":0}"#)
        #expect(second.status == 200 && second.json?["rev"] as? Int == 2, "\(second.text)")
        let delivered = await eventually(timeout: 20) {
            sandbox.accepted(token: token).contains { push in
                let aps = (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
                let state = aps?["content-state"] as? [String: Any]
                return state?["stopsAway"] as? Int == 0 && state?["status"] as? String == "at your door" && state?["rev"] as? Int == 2
            }
        }
        #expect(delivered, "the second scan's card reached the phone")

        // Bad input and another household's scan are refused and change nothing; the route and
        // the type are documented.
        let refused = try server.request("POST", "/api/parcels/P-7/scan", token: bearer, json: #"{"stops_away":-1}"#)
        #expect(refused.status == 400 && refused.errorField == "stops_away", "\(refused.text)")
        let (_, stranger) = try server.addUser(household: "Next door", name: "Bo")
        let elsewhere = try server.request("POST", "/api/parcels/P-7/scan", token: stranger, json: #"{"stops_away":9}"#)
        #expect(elsewhere.status == 404, "another household's parcel is not there: \(elsewhere.text)")
        let again = try server.request("POST", "/api/parcels/P-7/scan", token: bearer, json: #"{"stops_away":0}"#)
        #expect(again.json?["rev"] as? Int == 3, "the refused scans changed nothing: \(again.text)")
        let document = try server.request("GET", "/openapi.json").text
        #expect(document.contains("/api/parcels/{code}/scan") && document.contains("ParcelActivityAttributes"))

        // The admin API takes the type as any other.
        let put = try server.admin(
            "PUT", "/v1/contexts/parcel-api:1",
            json: #"{"type":"ParcelActivityAttributes","attributes":{"code":"P-8"},"contentState":{"stopsAway":2,"status":"on its way"}}"#)
        #expect(put.status == 201, "\(put.text)")
    }
}
