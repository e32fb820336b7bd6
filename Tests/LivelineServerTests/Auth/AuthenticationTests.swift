import Foundation
import LivelineTesting
import Testing

@Suite struct AuthenticationTests {
    @Test func apiRoutesNeedABearerToken() throws {
        let server = try TestServer()
        defer { server.stop() }
        for (method, path) in [("GET", "/api/me"), ("GET", "/api/users/1"), ("GET", "/api/apns/register")] {
            let response = try server.request(method, path)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.errorCode == "unauthorized")
            #expect(response.headers["www-authenticate"] == "Bearer")
        }
        let post = try server.request("POST", "/api/apns/register", json: #"{"kind":"alert","token":"aabbccddeeff00112233"}"#)
        #expect(post.status == 401)
    }

    @Test func unknownOrMalformedCredentialsAre401() throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try server.addUser(household: "Fisch", name: "Dennis")
        let wrong = try server.request("GET", "/api/me", token: "ll_not-a-real-token")
        #expect(wrong.status == 401)
        let basic = try server.request("GET", "/api/me", headers: ["Authorization": "Basic ZGVubmlzOnB3"])
        #expect(basic.status == 401)
        let empty = try server.request("GET", "/api/me", headers: ["Authorization": "Bearer "])
        #expect(empty.status == 401)
    }

    @Test func aValidTokenSpeaksForItsUser() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (dennis, token) = try server.addUser(household: "Fisch", name: "Dennis")
        let response = try server.request("GET", "/api/me", token: token)
        #expect(response.status == 200)
        let user = try #require(response.json?["user"] as? [String: Any])
        #expect(user["userId"] as? Int == dennis.id.rawValue)
        #expect(user["name"] as? String == "Dennis")
        #expect(response.json?["householdName"] as? String == "Fisch")
    }

    @Test func theAdminKeyIsGeneratedOnceAndKeptPrivate() throws {
        let server = try TestServer()
        let first = server.app.adminKey
        #expect(server.app.adminKeyGenerated)
        server.stop(keepData: true)
        let file = server.folder.appendingPathComponent("admin-key")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try TestServer(folder: server.folder)
        defer { again.stop() }
        #expect(again.app.adminKey == first)
        #expect(!again.app.adminKeyGenerated)
    }
}

extension AuthenticationTests {
    @Test func theSchemeIsCaseInsensitiveAndTheTokenOneWord() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, token) = try server.addUser(household: "Fisch", name: "Dennis")
        for header in ["bearer \(token)", "BEARER  \(token) "] {
            #expect(try server.request("GET", "/api/me", headers: ["Authorization": header]).status == 200, "\(header)")
        }
        for header in ["Bearer \(token) extra", "Bearer", "Bearer\(token)", "Token \(token)"] {
            #expect(try server.request("GET", "/api/me", headers: ["Authorization": header]).status == 401, "\(header)")
        }
    }
}
