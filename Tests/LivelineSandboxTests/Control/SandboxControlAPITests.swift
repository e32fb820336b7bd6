import Foundation
import LivelineHTTP2
import LivelineTestSupport
import Testing
@testable import LivelineSandbox

/// The JSON control port over HTTP/1.1, as another process would use it.
@Suite struct SandboxControlAPITests {
    func call(_ port: Int, _ method: String, _ path: String, _ body: String? = nil) throws -> TestHTTPConnection.Response {
        let connection = try TestHTTPConnection(port: port)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let body {
            request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            request += "Content-Length: 0\r\n\r\n"
        }
        try connection.send(Array(request.utf8))
        return try connection.readResponse()
    }

    @Test func registerMarkFaultReadAndReset() async throws {
        let harness = try SandboxHarness(controlPort: 0)
        defer { harness.sandbox.stop() }
        let port = try #require(harness.sandbox.controlPort)

        let info = try call(port, "GET", "/sandbox")
        #expect(info.status == 200)
        #expect(info.json?["devicePort"] as? Int == harness.sandbox.devicePort)
        #expect(info.json?["certificateFile"] as? String == harness.sandbox.certificateFile.path)
        #expect(info.json?["keyID"] as? String == "LLKEY00001")

        let token = String(repeating: "5a", count: 32)
        let registered = try call(port, "POST", "/devices", #"{"token":"\#(token)"}"#)
        #expect(registered.status == 201)
        let minted = try call(port, "POST", "/token")
        let jwt = try #require(minted.json?["token"] as? String)

        let client = try harness.client()
        defer { client.close() }
        #expect(try await harness.push(client, token: token, jwt: jwt).status == 200)
        let pushes = try call(port, "GET", "/devices/\(token)/pushes")
        let list = try #require(pushes.json?["pushes"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["payload"] as? String == String(decoding: SandboxHarness.liveActivityPayload, as: UTF8.self))
        #expect(list.first?["pushType"] as? String == "liveactivity" && list.first?["token"] as? String == token)

        let marked = try call(port, "POST", "/devices/\(token)/unregistered", #"{"at":1767000000123}"#)
        #expect(marked.status == 200 && marked.json?["timestamp"] as? Int == 1_767_000_000_123)
        let gone = try await harness.push(client, token: token, jwt: jwt)
        #expect(gone.status == 410 && gone.timestamp == 1_767_000_000_123)

        let set = try call(port, "PUT", "/faults", #"{"seed":9,"internalErrorShare":1}"#)
        #expect(set.status == 200 && harness.sandbox.faults.internalErrorShare == 1 && harness.sandbox.faults.seed == 9)
        #expect(try await harness.push(client, jwt: jwt).status == 500)
        #expect(try call(port, "PUT", "/faults", #"{"unavailableShare":2}"#).status == 400)
        let hang = try call(port, "PUT", "/faults", #"{"latencyMs":20,"managementLatencyMs":60000}"#)
        #expect(hang.status == 200 && harness.sandbox.faults.managementLatency == .seconds(60) && harness.sandbox.faults.latency == .milliseconds(20))
        #expect(hang.json?["managementLatencyMs"] as? Int == 60000)
        #expect(try call(port, "PUT", "/faults", #"{"managementLatencyMs":-1}"#).status == 400)
        #expect(try call(port, "DELETE", "/faults").status == 200)
        #expect(try await harness.push(client, jwt: jwt).status == 200)

        #expect(try call(port, "POST", "/reset").status == 200)
        #expect(harness.sandbox.acceptedCount == 0)
        #expect(try call(port, "GET", "/nowhere").status == 404)
    }

    @Test func channelPushesAreReadableByURLSafeID() async throws {
        let harness = try SandboxHarness(controlPort: 0)
        defer { harness.sandbox.stop() }
        let port = try #require(harness.sandbox.controlPort)
        let management = try harness.client(management: true)
        defer { management.close() }
        let created = try await management.send(
            HTTP2ClientRequest(
                path: "/1/apps/dev.liveline.demo/channels", headers: [("authorization", "bearer " + harness.jwt())],
                body: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)
            ))
        let channel = try #require(created.header("apns-channel-id"))
        let sent = try await management.send(
            HTTP2ClientRequest(
                path: "/4/broadcasts/apps/dev.liveline.demo",
                headers: [("authorization", "bearer " + harness.jwt()), ("apns-push-type", "liveactivity"), ("apns-channel-id", channel)],
                body: Array(#"{"aps":{"event":"update","content-state":{}}}"#.utf8)
            ))
        #expect(sent.status == 200)
        let urlSafe = channel.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
        let pushes = try call(port, "GET", "/channels/\(urlSafe)/pushes")
        #expect((pushes.json?["pushes"] as? [[String: Any]])?.first?["channelId"] as? String == channel)
        let channels = try call(port, "GET", "/channels")
        #expect(channels.json?["channels"] as? [String] == [channel])
    }
}
