import Foundation
import LivelineHTTP2
import LivelinePush
import LivelinePushWire
import Testing
@testable import LivelineSandbox

/// `POST /3/device/<token>` over real HTTP/2 + TLS: Apple's error table, row by row, and what a
/// success looks like.
@Suite struct DevicePushTests {
    /// One row of Apple's table as the sandbox produces it: how the request differs from a valid
    /// Live Activity push, and the status and reason expected.
    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var reason: String
        var why: String
        var changes: [(String, String?)] = []
        var body: [UInt8] = SandboxHarness.liveActivityPayload
        var token: String = SandboxHarness.token
        var method = "POST"
        var path: String?
        /// Sends `apns-topic` twice.
        var duplicateTopic = false
        var testDescription: String { "\(status) \(reason): \(why)" }
    }

    static let otherAppToken = String(repeating: "cd", count: 32)

    static let rows: [Row] = [
        Row(status: 400, reason: "BadCollapseId", why: "collapse id of 65 bytes", changes: [("apns-collapse-id", String(repeating: "c", count: 65))]),
        Row(status: 400, reason: "BadDeviceToken", why: "token not hex", token: "not-a-hex-token"),
        Row(status: 400, reason: "BadDeviceToken", why: "odd number of hex digits", token: "abc"),
        Row(status: 400, reason: "BadDeviceToken", why: "token nobody registered", token: String(repeating: "0f", count: 32)),
        Row(status: 400, reason: "BadExpirationDate", why: "expiration not a number", changes: [("apns-expiration", "tomorrow")]),
        Row(status: 400, reason: "BadExpirationDate", why: "negative expiration", changes: [("apns-expiration", "-1")]),
        Row(status: 400, reason: "BadMessageId", why: "apns-id not a UUID", changes: [("apns-id", "12345")]),
        Row(status: 400, reason: "BadPriority", why: "priority 7", changes: [("apns-priority", "7")]),
        Row(status: 400, reason: "BadPriority", why: "Live Activity at priority 1", changes: [("apns-priority", "1")]),
        Row(
            status: 400, reason: "BadPriority", why: "background at priority 10",
            changes: [("apns-push-type", "background"), ("apns-topic", "dev.liveline.demo"), ("apns-priority", "10")]),
        Row(status: 400, reason: "BadTopic", why: "malformed topic", changes: [("apns-topic", "dev..liveline demo.push-type.liveactivity")]),
        Row(status: 400, reason: "DeviceTokenNotForTopic", why: "token of another app", token: otherAppToken),
        Row(status: 400, reason: "DuplicateHeaders", why: "apns-topic twice", duplicateTopic: true),
        Row(status: 400, reason: "InvalidPushType", why: "unknown push type", changes: [("apns-push-type", "carrier-pigeon")]),
        Row(status: 400, reason: "MissingDeviceToken", why: "no token in the path", path: "/3/device/"),
        Row(status: 400, reason: "MissingTopic", why: "no apns-topic", changes: [("apns-topic", nil)]),
        Row(status: 400, reason: "PayloadEmpty", why: "empty body", body: []),
        Row(status: 400, reason: "TopicDisallowed", why: "Live Activity to the bare bundle ID", changes: [("apns-topic", "dev.liveline.demo")]),
        Row(
            status: 400, reason: "TopicDisallowed", why: "app the sandbox does not know",
            changes: [("apns-topic", "com.example.unknown.push-type.liveactivity")]),
        Row(
            status: 400, reason: "TopicDisallowed", why: "alert to a Live Activity topic",
            changes: [("apns-push-type", "alert")]),
        Row(status: 403, reason: "MissingProviderToken", why: "no authorization", changes: [("authorization", nil)]),
        Row(status: 403, reason: "InvalidProviderToken", why: "garbage token", changes: [("authorization", "bearer abc.def.ghi")]),
        Row(status: 403, reason: "InvalidProviderToken", why: "not a bearer token", changes: [("authorization", "basic Zm9vOmJhcg==")]),
        Row(status: 404, reason: "BadPath", why: "unknown path", path: "/3/devices/abab"),
        Row(status: 404, reason: "BadPath", why: "extra segment", path: "/3/device/abab/more"),
        Row(status: 405, reason: "MethodNotAllowed", why: "GET", method: "GET"),
        Row(status: 413, reason: "PayloadTooLarge", why: "4097 bytes", body: Array(repeating: UInt8(ascii: " "), count: 4097)),
    ]

    @Test(arguments: rows) func errorRow(_ row: Row) async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        harness.sandbox.registerDevice(token: Self.otherAppToken, bundleID: "com.example.other")
        let client = try harness.client()
        defer { client.close() }
        let response: HTTP2ClientResponse
        if row.duplicateTopic {
            var headers = try harness.liveActivityHeaders()
            headers.append(("apns-topic", "dev.liveline.demo.push-type.liveactivity"))
            response = try await client.send(HTTP2ClientRequest(path: "/3/device/\(row.token)", headers: headers, body: row.body))
        } else {
            response = try await harness.push(client, token: row.token, row.changes, body: row.body, method: row.method, path: row.path)
        }
        #expect(response.status == row.status)
        #expect(response.reason == row.reason)
        #expect(response.header("apns-id") != nil, "every answer names the request")
        #expect(response.timestamp == nil)
        #expect(harness.sandbox.acceptedCount == 0)
    }

    @Test func aSuccessIsHeadersOnlyWithTheEchoedIDAndAUniqueIDInDevelopment() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let id = "5f0b8c44-2d7f-4a9e-9d1e-0c6a2b6f8e11"
        let response = try await harness.push(client, [("apns-id", id), ("apns-expiration", "0"), ("apns-collapse-id", "score")])
        #expect(response.status == 200)
        #expect(!response.hadDataFrames && response.body.isEmpty)
        #expect(response.header("apns-id") == id)
        let unique = try #require(response.header("apns-unique-id"))
        #expect(WireFormats.isUUID(unique))

        let pushes = harness.sandbox.accepted(token: SandboxHarness.token.uppercased())
        #expect(pushes.count == 1)
        let push = try #require(pushes.first)
        #expect(push.apnsID == id && push.pushType == "liveactivity" && push.topic == "dev.liveline.demo.push-type.liveactivity")
        #expect(push.priority == 10 && push.expiration == 0 && push.collapseID == "score")
        #expect(push.payload == SandboxHarness.liveActivityPayload && push.receivedAt == harness.clock.now)
        #expect(push.token == SandboxHarness.token && push.channelID == nil)
    }

    @Test func anOmittedIDIsGeneratedLowerCaseAndProductionHasNoUniqueID() async throws {
        let harness = try SandboxHarness(environment: .production)
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let response = try await harness.push(client, [("apns-priority", nil)])
        #expect(response.status == 200)
        let id = try #require(response.header("apns-id"))
        #expect(WireFormats.isUUID(id) && id == id.lowercased())
        #expect(response.header("apns-unique-id") == nil)
        #expect(harness.sandbox.accepted(token: SandboxHarness.token).first?.priority == 10)
    }

    @Test func everyPushTypeNeedsItsOwnTopic() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        for (type, suffix) in APNSPushType.topicSuffixes where type != .mdm {
            let priority = type == .background ? "5" : "10"
            let body = type == .widgets ? APNSNotification.widgetsPayload : SandboxHarness.liveActivityPayload
            let right = try await harness.push(
                client, [("apns-push-type", type.rawValue), ("apns-topic", "dev.liveline.demo" + suffix), ("apns-priority", priority)],
                body: body)
            #expect(right.status == 200, "\(type) to \(suffix)")
            let wrong = try await harness.push(
                client, [("apns-push-type", type.rawValue), ("apns-topic", "dev.liveline.demo.push-type.nothing"), ("apns-priority", priority)])
            #expect(wrong.status == 400 && wrong.reason == "TopicDisallowed", "\(type)")
        }
        #expect(harness.sandbox.accepted(token: SandboxHarness.token).count == APNSPushType.topicSuffixes.count - 1)
    }

    @Test func sizeLimitsAreInclusive() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let exact = try await harness.push(client, body: Array(repeating: UInt8(ascii: " "), count: 4096))
        #expect(exact.status == 200)
        let voip = try await harness.push(
            client, [("apns-push-type", "voip"), ("apns-topic", "dev.liveline.demo.voip")], body: Array(repeating: UInt8(ascii: " "), count: 5120))
        #expect(voip.status == 200)
        let bigVoip = try await harness.push(
            client, [("apns-push-type", "voip"), ("apns-topic", "dev.liveline.demo.voip")], body: Array(repeating: UInt8(ascii: " "), count: 5121))
        #expect(bigVoip.status == 413 && bigVoip.reason == "PayloadTooLarge")
    }

    @Test func unregisteredAndExpiredTokensAre410WithTheirTimestampInMilliseconds() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let gone = String(repeating: "01", count: 32)
        let expired = String(repeating: "02", count: 32)
        harness.sandbox.registerDevice(token: gone)
        harness.sandbox.registerDevice(token: expired)
        #expect(try await harness.push(client, token: gone).status == 200)
        harness.sandbox.markUnregistered(token: gone, at: Date(timeIntervalSince1970: 1_767_000_123.456))
        harness.sandbox.markExpired(token: expired, at: Date(timeIntervalSince1970: 1_767_000_000))

        let unregistered = try await harness.push(client, token: gone)
        #expect(unregistered.status == 410 && unregistered.reason == "Unregistered")
        #expect(unregistered.timestamp == 1_767_000_123_456)
        #expect(unregistered.header("apns-id") != nil)
        let expiredResponse = try await harness.push(client, token: expired)
        #expect(expiredResponse.status == 410 && expiredResponse.reason == "ExpiredToken")
        #expect(expiredResponse.timestamp == 1_767_000_000_000)
        #expect(harness.sandbox.accepted(token: gone).count == 1)
    }

    @Test func acceptAnyTokenTakesUnknownTokensButKeepsTheRulesOfKnownOnes() async throws {
        let harness = try SandboxHarness(acceptAnyToken: true)
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let stranger = String(repeating: "9e", count: 40)
        #expect(try await harness.push(client, token: stranger).status == 200)
        #expect(try await harness.push(client, token: "xyz").reason == "BadDeviceToken")
        harness.sandbox.markUnregistered(token: SandboxHarness.token, at: harness.clock.now)
        #expect(try await harness.push(client).status == 410)
        #expect(harness.sandbox.accepted(token: stranger).count == 1)
    }

    @Test func pushesAreRecordedInOrderPerToken() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        for index in 0..<20 {
            let body = Array(#"{"aps":{"event":"update","content-state":{"n":\#(index)}}}"#.utf8)
            #expect(try await harness.push(client, body: body).status == 200)
        }
        let recorded = harness.sandbox.accepted(token: SandboxHarness.token).map(\.payloadText)
        #expect(recorded == (0..<20).map { #"{"aps":{"event":"update","content-state":{"n":\#($0)}}}"# })
        #expect(harness.sandbox.acceptedCount == 20)
        harness.sandbox.reset()
        #expect(harness.sandbox.acceptedCount == 0 && harness.sandbox.accepted(token: SandboxHarness.token).isEmpty)
        #expect(try await harness.push(client).reason == "BadDeviceToken", "reset forgets registered tokens")
    }

    @Test func manyConcurrentPushesOnOneConnection() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let jwt = try harness.jwt()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<500 { group.addTask { try await harness.push(client, jwt: jwt).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 500 && statuses.allSatisfy { $0 == 200 })
        #expect(harness.sandbox.acceptedCount == 500)
        #expect(Set(harness.sandbox.accepted(token: SandboxHarness.token).map(\.connectionID)).count == 1)
    }
}
