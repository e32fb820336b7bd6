import Foundation
import Liveline
import LivelineCrypto
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

/// Sessions end when their user signs out or an administrator revokes them, and the token is
/// refused from the next request on — also by a server that had it cached, and when the
/// revocation came from another process or instance sharing the database.
@Suite struct SessionRevocationTests {
    @Test func aUserSignsOutAndTheirTokenIsRefusedAtOnce() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, token) = try server.addUser(household: "Fisch", name: "Dennis")
        let (_, other) = try server.addUser(household: "Fisch", name: "Jaqueline")
        #expect(try server.request("GET", "/api/me", token: token).status == 200)  // cached from now on
        let out = try server.request("POST", "/api/me/sign-out", token: token)
        #expect(out.status == 200)
        #expect(out.json?["signedOut"] as? Bool == true)
        let after = try server.request("GET", "/api/me", token: token)
        #expect(after.status == 401)
        #expect(after.errorCode == "unauthorized")
        #expect(try server.request("POST", "/api/me/sign-out", token: token).status == 401, "signing out twice")
        #expect(try server.request("GET", "/api/me", token: other).status == 200, "another session of the household goes on")
    }

    @Test func aRevocationByAnotherProcessIsSeenAtTheNextRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (user, token) = try server.addUser(household: "Fisch", name: "Dennis")
        let (_, second) = try server.addUser(household: "Fisch", name: "Jaqueline")
        #expect(try server.request("GET", "/api/me", token: token).status == 200)
        #expect(try server.request("GET", "/api/me", token: second).status == 200)
        // `liveline users revoke` opens the database for itself, as another process or instance does.
        var configuration = ServerConfiguration()
        configuration.dataDirectory = server.folder
        configuration.databaseURL = try TestServer.databaseURL(of: server.folder)
        let elsewhere = try configuration.openStore(features: Assembly.features.map(\.featureMigrations))
        #expect(try elsewhere.accounts.deleteSessions(userID: user.id) == 1)
        // Closed at once, as the command closes it: its commit is told all the same.
        elsewhere.database.close()
        if TestBackend.isPostgres {
            // Within the change feed's spacing of the commit (0.1 s), waited for generously.
            #expect(try await eventually(timeout: 3) { try server.request("GET", "/api/me", token: token).status == 401 })
        } else {
            #expect(try server.request("GET", "/api/me", token: token).status == 401, "the very next request")
        }
        #expect(try server.request("GET", "/api/me", token: second).status == 200)
    }

    @Test func repeatedFailedAuthenticationsFromAnAddressAre429UntilAMinutePassed() throws {
        let wall = ManualClock(Date())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-limit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = folder
        configuration.accessLog = "off"
        configuration.logLevel = .error
        configuration.authFailuresPerMinute = 5
        configuration.databaseURL = try TestServer.databaseURL(of: folder)
        TestLogs.collect(logSink: &configuration.logSink, accessLog: &configuration.accessLog, logLevel: &configuration.logLevel)
        let app = try Assembly.server(configuration, wallClock: wall.function).app
        try app.start()
        TestLogs.recordServerSecrets(adminKey: app.adminKey, dataDirectory: configuration.dataDirectory)
        defer { app.shutdown() }
        let token = SecureRandom.token(prefix: "ll_")
        _ = try app.store.accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "x", locale: "de", tokenHash: SHA256.hex(token), now: Date())
        func me(_ bearer: String?) throws -> TestHTTPConnection.Response {
            try TestHTTPConnection(port: app.port).request("GET", "/api/me", headers: bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:])
        }
        // Requests without credentials are no guesses: they never count.
        for _ in 0..<10 { #expect(try me(nil).status == 401) }
        #expect(try me(token).status == 200)
        // One wrong token sent again and again (a phone polling with its revoked token) is one failure.
        for _ in 0..<10 { #expect(try me("ll_revoked-long-ago").status == 401) }
        #expect(try me(token).status == 200)
        // Five different wrong tokens (or admin keys) within a minute, then the address waits —
        // even with the right token.
        for index in 1..<5 {
            let wrong =
                index.isMultiple(of: 2)
                ? try me("ll_wrong-\(index)")
                : try TestHTTPConnection(port: app.port).request(
                    "GET", "/metrics", headers: ["Authorization": "Bearer not-the-admin-key-\(index)"])
            #expect(wrong.status == 401)
        }
        let limited = try me(token)
        #expect(limited.status == 429)
        #expect(limited.errorCode == "tooManyFailedAuthentications")
        #expect(limited.headers["retry-after"] == "60")
        wall.advance(by: 45)
        #expect(try me(token).headers["retry-after"] == "15")
        wall.advance(by: 15)
        #expect(try me(token).status == 200, "a minute after the first of them")
    }
}
