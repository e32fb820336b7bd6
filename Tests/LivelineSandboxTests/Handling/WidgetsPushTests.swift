import Foundation
import LivelineHTTP2
import LivelinePushWire
import Testing
@testable import LivelineSandbox

/// WidgetKit pushes (`apns-push-type: widgets`) over real HTTP/2 + TLS: Apple's request ("Updating
/// widgets with WidgetKit push notifications") is accepted, a body without `aps.content-changed:
/// true` is refused by the sandbox's choice (`docs/sandbox.md`, "Rules and their answers").
@Suite struct WidgetsPushTests {
    /// The headers of Apple's sample request: no `apns-priority`, no `apns-expiration`.
    static let widgets: [(String, String?)] = [
        ("apns-push-type", "widgets"), ("apns-topic", "dev.liveline.demo.push-type.widgets"), ("apns-priority", nil),
    ]

    @Test func applesSampleRequestIsAcceptedAtPriority10() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let response = try await harness.push(client, Self.widgets, body: APNSNotification.widgetsPayload)
        #expect(response.status == 200 && response.body.isEmpty)
        let push = try #require(harness.sandbox.accepted(token: SandboxHarness.token).first)
        #expect(push.pushType == "widgets" && push.topic == "dev.liveline.demo.push-type.widgets")
        #expect(push.priority == 10 && push.expiration == nil && push.payload == APNSNotification.widgetsPayload)
    }

    @Test func everyPriorityAndExpirationIsTakenAsForAnyType() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        // Extra keys beside `content-changed` are kept: Apple asks for the key, not for it alone.
        let body = Array(#"{"aps":{"content-changed":true,"note":1},"kind":"shopping"}"#.utf8)
        for (priority, expiration) in [("1", "0"), ("5", "1767003600"), ("10", "0")] {
            let response = try await harness.push(
                client, Self.widgets + [("apns-priority", priority), ("apns-expiration", expiration)], body: body)
            #expect(response.status == 200, "priority \(priority): \(response.reason ?? "")")
        }
        #expect(harness.sandbox.accepted(token: SandboxHarness.token).map(\.priority) == [1, 5, 10])
        let bad = try await harness.push(client, Self.widgets + [("apns-priority", "7")], body: APNSNotification.widgetsPayload)
        #expect(bad.status == 400 && bad.reason == "BadPriority")
    }

    @Test(arguments: [
        #"{"aps":{}}"#, #"{"aps":{"content-changed":false}}"#, #"{"aps":{"content-changed":1}}"#, #"{"aps":{"content-changed":"true"}}"#,
        #"{"content-changed":true}"#, #"{"aps":[{"content-changed":true}]}"#, #"[{"aps":{"content-changed":true}}]"#, "not json",
    ])
    func aBodyWithoutContentChangedTrueIsRefused(_ body: String) async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let response = try await harness.push(client, Self.widgets, body: Array(body.utf8))
        #expect(response.status == 400 && response.reason == "BadRequestPayload")
        #expect(response.header("apns-id") != nil)
        #expect(harness.sandbox.acceptedCount == 0, "a refused push is never recorded")
    }

    @Test func theTopicMustBeTheWidgetsOne() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        for topic in ["dev.liveline.demo", "dev.liveline.demo.push-type.liveactivity", "com.example.other.push-type.widgets"] {
            let response = try await harness.push(client, Self.widgets + [("apns-topic", topic)], body: APNSNotification.widgetsPayload)
            #expect(response.status == 400 && response.reason == "TopicDisallowed", "\(topic)")
        }
        // No push type: the topic's suffix says `widgets`, and its rules apply.
        let implied = try await harness.push(
            client, Self.widgets + [("apns-push-type", nil)], body: SandboxHarness.liveActivityPayload)
        #expect(implied.status == 400 && implied.reason == "BadRequestPayload")
        #expect(harness.sandbox.acceptedCount == 0)
    }
}
