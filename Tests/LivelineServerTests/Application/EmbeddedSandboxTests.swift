import Foundation
import LivelineModel
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// The embedded default (README, "Two commands"): without an APNs key the server pushes to its own
/// in-process sandbox, which knows the tokens this server's users register.
@Suite struct EmbeddedSandboxTests {
    @Test func aTokenRegisteredThroughTheAPIIsAcceptedAndStaysActive() async throws {
        let server = try TestServer { $0.adminKey = ContextAPITests.adminKey }
        defer { server.stop() }
        let sandbox = try #require(server.sandbox)
        let (user, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        let tokens = (0..<3).map { String(format: "%064x", 0xabc0 + $0) }  // never told to the sandbox
        for (index, token) in tokens.enumerated() {
            let registered = try server.request(
                "POST", "/api/apns/register", token: bearer,
                json:
                    #"{"kind":"la-update","token":"\#(token)","device_id":"p\#(index)","context_key":"trip:first","attributes_type":"TripLiveActivityAttributes"}"#
            )
            #expect(registered.status == 200, "\(registered.text)")
        }
        let put = try server.request("PUT", "/v1/contexts/trip:first", token: ContextAPITests.adminKey, json: ContextAPITests.trip(delay: 1))
        #expect(put.status == 201, "\(put.text)")
        #expect(await eventually { tokens.allSatisfy { sandbox.accepted(token: $0).count == 1 } })
        // The answers are recorded once the dispatcher has them all, after the sandbox accepted the last.
        func statuses() throws -> [Int] {
            try server.app.store.database.read { transaction in
                try transaction.query("SELECT status FROM deliveries").map { try $0.int("status") }
            }
        }
        #expect(try await eventually { try statuses().count == 3 })
        let recorded = try statuses()
        #expect(recorded.allSatisfy { $0 == 200 }, "\(recorded)")
        #expect(try server.app.store.tokens.activeTokens(userID: user.id).count == 3, "every token stays active")
        // A token nobody registered is still answered as APNs answers it.
        #expect(!(try server.app.store.tokens.isActive(apnsToken: String(repeating: "ee", count: 32))))
    }
}
