import Foundation
import LivelineTestSupport
import Testing
@testable import LivelineSandbox

/// The APNs sandbox runs a Web Push service of its own, on its clock, and says where it is.
@Suite struct SandboxWebPushTests {
    @Test func theSandboxRunsAWebPushServiceOnItsClock() throws {
        let harness = try SandboxHarness(controlPort: 0)
        let service = harness.sandbox.webPush
        let info = try TestHTTPConnection(port: try #require(harness.sandbox.controlPort)).request("GET", "/sandbox")
        #expect(info.json?["webPushOrigin"] as? String == service.origin)
        #expect(info.json?["webPushPort"] as? Int == service.port && service.port != 0)

        let sender = try WebPushSender(service)
        let browser = try service.subscribe()
        let token = try sender.authorization(lifetime: 3600)
        #expect(try sender.send(to: browser, ["Authorization": token]).status == 201)
        #expect(service.pushes(subscriptionID: browser.id).first?.receivedAt == harness.clock.now)
        harness.clock.advance(by: 2 * 3600)
        let expired = try sender.send(to: browser, ["Authorization": token])
        #expect(expired.status == 403 && expired.reason == "BadJwtToken", "the token expired on the sandbox clock")

        harness.sandbox.stop()
        #expect(throws: (any Error).self) { try TestHTTPConnection(port: service.port).request("GET", "/push-service") }
    }
}
