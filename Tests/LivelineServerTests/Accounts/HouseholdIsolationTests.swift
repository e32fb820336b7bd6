import Foundation
import LivelineTesting
import Testing

@Suite struct HouseholdIsolationTests {
    @Test func aUserSeesOnlyTheirOwnHousehold() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, dennisToken) = try server.addUser(household: "Fisch", name: "Dennis")
        let (jaqueline, _) = try server.addUser(household: "Fisch", name: "Jaqueline")
        let (mallory, _) = try server.addUser(household: "Nachbarn", name: "Mallory")

        let me = try server.request("GET", "/api/me", token: dennisToken)
        let members = try #require(me.json?["members"] as? [[String: Any]])
        #expect(Set(members.compactMap { $0["name"] as? String }) == ["Dennis", "Jaqueline"])

        let partner = try server.request("GET", "/api/users/\(jaqueline.id)", token: dennisToken)
        #expect(partner.status == 200)
        #expect(partner.json?["name"] as? String == "Jaqueline")

        let stranger = try server.request("GET", "/api/users/\(mallory.id)", token: dennisToken)
        #expect(stranger.status == 404)
        #expect(stranger.errorCode == "notFound")
        #expect(!stranger.text.contains("Mallory") && !stranger.text.contains("Nachbarn"))
    }

    @Test func aBadUserIdIs400AndAMissingOne404() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, token) = try server.addUser(household: "Fisch", name: "Dennis")
        let bad = try server.request("GET", "/api/users/abc", token: token)
        #expect(bad.status == 400)
        #expect(bad.errorField == "userId")
        let missing = try server.request("GET", "/api/users/999999", token: token)
        #expect(missing.status == 404)
    }
}
