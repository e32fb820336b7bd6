import Foundation
import LivelineHTTP2
import Testing
@testable import LivelineSandbox

/// The channel management API and broadcast sends over real HTTP/2 + TLS.
@Suite struct ChannelAndBroadcastTests {
    static let broadcastPayload = Array(#"{"aps":{"timestamp":1767000000,"event":"update","content-state":{"score":"2:1"}}}"#.utf8)

    func channelRequest(
        _ harness: SandboxHarness, method: String, path: String? = nil, channel: String? = nil, body: String? = nil,
        extra: [(String, String?)] = [], jwt: String? = nil
    ) throws -> HTTP2ClientRequest {
        var headers: [(name: String, value: String)] = [("authorization", "bearer " + (try jwt ?? harness.jwt()))]
        if let channel { headers.append(("apns-channel-id", channel)) }
        for (name, value) in extra {
            headers.removeAll { $0.name == name }
            if let value { headers.append((name, value)) }
        }
        return HTTP2ClientRequest(
            method: method, path: path ?? "/1/apps/\(harness.sandbox.bundleID)/channels", headers: headers,
            body: body.map { Array($0.utf8) }
        )
    }

    func create(_ harness: SandboxHarness, _ client: HTTP2ClientConnection, policy: Int = 1) async throws -> String {
        let response = try await client.send(
            try channelRequest(
                harness, method: "POST", body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#
            ))
        #expect(response.status == 201 && response.body.isEmpty)
        return try #require(response.header("apns-channel-id"))
    }

    func broadcast(
        _ harness: SandboxHarness, _ client: HTTP2ClientConnection, channel: String?, _ changes: [(String, String?)] = [],
        body: [UInt8] = Self.broadcastPayload, bundle: String? = nil, method: String = "POST"
    ) async throws -> HTTP2ClientResponse {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + (try harness.jwt())), ("apns-push-type", "liveactivity"), ("apns-priority", "10"),
        ]
        if let channel { headers.append(("apns-channel-id", channel)) }
        for (name, value) in changes {
            headers.removeAll { $0.name == name }
            if let value { headers.append((name, value)) }
        }
        return try await client.send(
            HTTP2ClientRequest(
                method: method, path: "/4/broadcasts/apps/\(bundle ?? harness.sandbox.bundleID)", headers: headers, body: body
            ))
    }

    @Test func createReadListDelete() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client(management: true)
        defer { client.close() }
        let stored = try await create(harness, client, policy: 1)
        let unstored = try await create(harness, client, policy: 0)
        #expect(stored != unstored && Data(base64Encoded: stored)?.count == 16)

        let read = try await client.send(try channelRequest(harness, method: "GET", channel: unstored))
        #expect(read.status == 200)
        let readBody = try #require(try JSONSerialization.jsonObject(with: Data(read.body)) as? [String: Any])
        #expect(readBody["message-storage-policy"] as? Int == 0 && readBody["push-type"] as? String == "LiveActivity")
        #expect(read.header("apns-request-id") != nil)

        let list = try await client.send(try channelRequest(harness, method: "GET", path: "/1/apps/dev.liveline.demo/all-channels"))
        #expect(list.status == 200)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: Any])
        #expect(listed["channels"] as? [String] == [stored, unstored])
        #expect(harness.sandbox.channels() == [stored, unstored])

        let deleted = try await client.send(try channelRequest(harness, method: "DELETE", channel: stored))
        #expect(deleted.status == 204 && !deleted.hadDataFrames)
        #expect(harness.sandbox.channels() == [unstored])
        let again = try await client.send(try channelRequest(harness, method: "GET", channel: stored))
        #expect(again.status == 400 && again.reason == "ChannelNotRegistered")
        let requestID = "0b5a2d44-1111-4a9e-9d1e-0c6a2b6f8e11"
        let echoed = try await client.send(try channelRequest(harness, method: "GET", channel: unstored, extra: [("apns-request-id", requestID)]))
        #expect(echoed.header("apns-request-id") == requestID)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var reason: String
        var why: String
        /// nil: GET for channel requests, POST for broadcasts.
        var method: String?
        var path: String?
        var channel: String? = "AAAAAAAAAAAAAAAAAAAAAA=="
        var body: String?
        var extra: [(String, String?)] = []
        var testDescription: String { "\(status) \(reason): \(why)" }
    }

    static let managementRows: [Row] = [
        Row(status: 400, reason: "MissingChannelId", why: "read without apns-channel-id", channel: nil),
        Row(status: 400, reason: "BadChannelId", why: "channel id not base64", channel: "not base64!"),
        Row(status: 400, reason: "ChannelNotRegistered", why: "unknown channel"),
        Row(status: 400, reason: "ChannelNotRegistered", why: "delete an unknown channel", method: "DELETE"),
        Row(status: 400, reason: "PayloadEmpty", why: "create without body", method: "POST", channel: nil),
        Row(status: 400, reason: "BadRequestPayload", why: "create with non-JSON", method: "POST", channel: nil, body: "policy=1"),
        Row(
            status: 400, reason: "MissingPushType", why: "create without push-type", method: "POST", channel: nil,
            body: #"{"message-storage-policy":1}"#),
        Row(
            status: 400, reason: "InvalidPushType", why: "create for alerts", method: "POST", channel: nil,
            body: #"{"message-storage-policy":1,"push-type":"Alert"}"#),
        Row(
            status: 400, reason: "BadRequestParams", why: "storage policy 2", method: "POST", channel: nil,
            body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#),
        Row(
            status: 400, reason: "BadRequestParams", why: "storage policy true", method: "POST", channel: nil,
            body: #"{"message-storage-policy":true,"push-type":"LiveActivity"}"#),
        Row(
            status: 400, reason: "TopicDisallowed", why: "bundle ID with a push type suffix",
            path: "/1/apps/dev.liveline.demo.push-type.liveactivity/all-channels"),
        Row(status: 403, reason: "TopicMismatch", why: "an app the sandbox does not know", path: "/1/apps/com.example.unknown/all-channels"),
        Row(status: 403, reason: "MissingProviderToken", why: "no authorization", extra: [("authorization", nil)]),
        Row(status: 403, reason: "InvalidProviderToken", why: "bad token", extra: [("authorization", "bearer x.y.z")]),
        Row(status: 404, reason: "BadPath", why: "unknown path", path: "/1/apps/dev.liveline.demo/channel"),
        Row(status: 404, reason: "BadPath", why: "device push on the management port", method: "POST", path: "/3/device/abab"),
        Row(status: 405, reason: "MethodNotAllowed", why: "PUT a channel", method: "PUT"),
        Row(status: 405, reason: "MethodNotAllowed", why: "DELETE all channels", method: "DELETE", path: "/1/apps/dev.liveline.demo/all-channels"),
    ]

    @Test(arguments: managementRows) func managementErrorRow(_ row: Row) async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client(management: true)
        defer { client.close() }
        let response = try await client.send(
            try channelRequest(harness, method: row.method ?? "GET", path: row.path, channel: row.channel, body: row.body, extra: row.extra))
        #expect(response.status == row.status)
        #expect(response.reason == row.reason)
        #expect(response.header("apns-request-id") != nil)
        #expect(harness.sandbox.channels().isEmpty)
    }

    @Test func theQuotaIsPerApp() async throws {
        let harness = try SandboxHarness(channelQuota: 2)
        defer { harness.sandbox.stop() }
        let client = try harness.client(management: true)
        defer { client.close() }
        let first = try await create(harness, client)
        _ = try await create(harness, client)
        let refused = try await client.send(
            try channelRequest(harness, method: "POST", body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#))
        #expect(refused.status == 400 && refused.reason == "CannotCreateChannelConfig")
        _ = try await client.send(try channelRequest(harness, method: "DELETE", channel: first))
        let third = try await create(harness, client)
        #expect(third != first, "a deleted ID is never reissued")
    }

    @Test func broadcastsAreAcceptedOnBothPortsAndRecordedPerChannel() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let management = try harness.client(management: true)
        defer { management.close() }
        let device = try harness.client()
        defer { device.close() }
        let channel = try await create(harness, management, policy: 1)
        let requestID = "7d1c9a10-0000-4000-8000-000000000001"
        let sent = try await broadcast(harness, device, channel: channel, [("apns-request-id", requestID), ("apns-expiration", "1767003600")])
        #expect(sent.status == 200 && !sent.hadDataFrames)
        #expect(sent.header("apns-request-id") == requestID && sent.header("apns-id") == nil)
        #expect(sent.header("apns-unique-id") != nil)
        let viaManagement = try await broadcast(harness, management, channel: channel, [("apns-priority", "1"), ("apns-topic", "dev.liveline.demo")])
        #expect(viaManagement.status == 200)
        let withSuffixTopic = try await broadcast(harness, device, channel: channel, [("apns-topic", "dev.liveline.demo.push-type.liveactivity")])
        #expect(withSuffixTopic.status == 200)

        let recorded = harness.sandbox.accepted(channel: channel)
        #expect(recorded.count == 3)
        #expect(recorded.first?.apnsID == requestID && recorded.first?.expiration == 1_767_003_600 && recorded.first?.channelID == channel)
        #expect(recorded.map(\.priority) == [10, 1, 10] && recorded.allSatisfy { $0.token == nil && $0.pushType == "liveactivity" })
    }

    static let broadcastRows: [Row] = [
        Row(status: 400, reason: "MissingChannelId", why: "no apns-channel-id", channel: nil),
        Row(status: 400, reason: "BadChannelId", why: "channel id not base64", channel: "%%%"),
        Row(status: 400, reason: "ChannelNotRegistered", why: "unknown channel"),
        Row(status: 400, reason: "MissingPushType", why: "no apns-push-type", extra: [("apns-push-type", nil)]),
        Row(status: 400, reason: "InvalidPushType", why: "alert broadcast", extra: [("apns-push-type", "alert")]),
        // "You can't update widgets with broadcast push notifications" ("Updating widgets with
        // WidgetKit push notifications").
        Row(
            status: 400, reason: "InvalidPushType", why: "widgets broadcast", body: #"{"aps":{"content-changed":true}}"#,
            extra: [("apns-push-type", "widgets")]),
        Row(status: 400, reason: "BadMessageId", why: "apns-id not a UUID", extra: [("apns-id", "nope")]),
        Row(status: 400, reason: "BadPriority", why: "priority 3", extra: [("apns-priority", "3")]),
        Row(status: 400, reason: "BadExpirationDate", why: "expiration not a number", extra: [("apns-expiration", "soon")]),
        Row(
            status: 400, reason: "BadExpirationDate", why: "non-zero expiration on a no-storage channel", channel: "nostore",
            extra: [("apns-expiration", "1767003600")]),
        Row(status: 400, reason: "PayloadEmpty", why: "empty body", body: ""),
        Row(status: 400, reason: "BadRequestPayload", why: "body not a JSON object", body: "[1,2]"),
        Row(status: 400, reason: "TopicDisallowed", why: "suffixed bundle in the path", path: "dev.liveline.demo.push-type.liveactivity"),
        Row(status: 400, reason: "TopicDisallowed", why: "apns-topic of another app", extra: [("apns-topic", "com.example.other")]),
        Row(status: 400, reason: "DuplicateHeaders", why: "apns-channel-id twice", channel: "twice"),
        Row(status: 403, reason: "TopicMismatch", why: "app the sandbox does not know", path: "com.example.unknown"),
        Row(status: 403, reason: "MissingProviderToken", why: "no authorization", extra: [("authorization", nil)]),
        Row(status: 405, reason: "MethodNotAllowed", why: "GET", method: "GET"),
        Row(
            status: 413, reason: "PayloadTooLarge", why: "5121 bytes",
            body: #"{"aps":{}, "pad":""# + String(repeating: "x", count: 5121 - 19) + #""}"#),
    ]

    @Test(arguments: broadcastRows) func broadcastErrorRow(_ row: Row) async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let management = try harness.client(management: true)
        defer { management.close() }
        let device = try harness.client()
        defer { device.close() }
        let stored = try await create(harness, management, policy: 1)
        let unstored = try await create(harness, management, policy: 0)
        let changes = row.extra
        let channel: String?
        switch row.channel {
        case "nostore": channel = unstored
        case "twice": channel = stored
        case "AAAAAAAAAAAAAAAAAAAAAA==": channel = row.reason == "ChannelNotRegistered" ? row.channel : stored
        default: channel = row.channel
        }
        var response: HTTP2ClientResponse
        if row.channel == "twice" {
            var request = try HTTP2ClientRequest(
                path: "/4/broadcasts/apps/dev.liveline.demo",
                headers: [
                    ("authorization", "bearer " + harness.jwt()), ("apns-push-type", "liveactivity"), ("apns-channel-id", stored),
                    ("apns-channel-id", unstored),
                ],
                body: Self.broadcastPayload
            )
            request.method = "POST"
            response = try await device.send(request)
        } else {
            response = try await broadcast(
                harness, device, channel: channel, changes, body: row.body.map { Array($0.utf8) } ?? Self.broadcastPayload,
                bundle: row.path, method: row.method ?? "POST"
            )
        }
        #expect(response.status == row.status)
        #expect(response.reason == row.reason)
        #expect(response.header("apns-request-id") != nil && response.header("apns-id") == nil)
        #expect(harness.sandbox.acceptedCount == 0)
    }
}
