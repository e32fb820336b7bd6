import Foundation
import LivelineModel
import LivelinePush
import LivelineSandbox
import LivelineServer
import LivelineTestSupport
import Testing

/// Broadcast channels end to end (`engine.md`, "Broadcast channels"): created on the first start
/// that asks for one, used for updates, deleted after the end, orphans deleted on a restart, and
/// token fan-out when APNs will not create one.
@Suite struct ChannelTests {
    static func startBody(_ userID: Int) -> String {
        #"{"userIds":[\#(userID)],"alert":{"title":"Shopping"},"useChannel":true}"#
    }

    static func externalSandbox(_ folder: URL, quota: Int = 10_000) throws -> APNsSandbox {
        var configuration = SandboxConfiguration(folder: folder.appendingPathComponent("sandbox"))
        configuration.channelQuota = quota
        return try APNsSandbox.start(configuration)
    }

    @Test func aChannelIsCreatedOnTheFirstStartCarriesTheUpdatesAndIsDeletedAfterTheEnd() async throws {
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let startToken = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:chan", json: ContextAPITests.trip(delay: 1)).status == 201)

        let first = try setup.admin("POST", "/v1/contexts/trip:chan/start", json: Self.startBody(setup.userID))
        let channelID = try #require(first.json?["channelId"] as? String, "\(first.text)")
        #expect(setup.sandbox.channels() == [channelID])
        let again = try setup.admin("POST", "/v1/contexts/trip:chan/start", json: Self.startBody(setup.userID))
        #expect(again.json?["channelId"] as? String == channelID)
        #expect(setup.sandbox.channels().count == 1, "one channel however often it is started")
        #expect(await eventually { setup.aps(startToken).count == 1 })
        #expect(setup.aps(startToken).first?["input-push-channel"] as? String == channelID)
        #expect(setup.aps(startToken).first?["input-push-token"] == nil)

        #expect(try setup.admin("PUT", "/v1/contexts/trip:chan", json: ContextAPITests.trip(delay: 4)).status == 200)
        let onChannel = {
            setup.sandbox.accepted(channel: channelID).compactMap { push -> [String: Any]? in
                (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
            }
        }
        #expect(await eventually { (onChannel().last?["content-state"] as? [String: Any])?["delay"] as? Int == 4 })

        #expect(try setup.admin("POST", "/v1/contexts/trip:chan/end").status == 200)
        #expect(await eventually { onChannel().last?["event"] as? String == "end" })
        #expect(await eventually { setup.sandbox.channels().isEmpty }, "deleted after the end")
        #expect(try await eventually { try setup.server.app.store.channels.channel(id: channelID)?.isActive == false })
        #expect(try setup.server.app.store.contexts.context(key: "trip:chan")?.channelID == nil)
    }

    @Test func anOrphanChannelIsDeletedWhenTheServerStartsAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try Self.externalSandbox(folder)
        defer { sandbox.stop() }
        let data = folder.appendingPathComponent("data")

        let first = try ContextAPITests.Setup(folder: data, external: sandbox)
        _ = try first.startDevice(0, type: "TripLiveActivityAttributes")
        #expect(try first.admin("PUT", "/v1/contexts/trip:kept", json: ContextAPITests.trip(delay: 1)).status == 201)
        let kept = try #require(try first.admin("POST", "/v1/contexts/trip:kept/start", json: Self.startBody(first.userID)).json?["channelId"] as? String)
        first.stop(keepData: true)

        // A channel no row knows (e.g. created by a run that crashed before recording it).
        let client = try APNSClient(configuration: APNSClientConfiguration(
            credentials: APNSCredentials(keyID: sandbox.keyID, teamID: sandbox.teamID, key: sandbox.signingKey),
            environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: sandbox.certificateFile.path)
        ))
        defer { client.shutdown() }
        let orphan = try #require(await client.createChannel(bundleID: sandbox.bundleID).channelID)
        #expect(Set(sandbox.channels()) == [kept, orphan])

        let second = try ContextAPITests.Setup(folder: data, external: sandbox)
        defer { second.stop() }
        #expect(await eventually { sandbox.channels() == [kept] }, "orphan deleted, the recorded one kept: \(sandbox.channels())")
        #expect(try second.server.app.store.channels.channel(id: kept)?.isActive == true)
    }

    @Test func whenAPNsWillNotCreateAChannelTheStartFallsBackToTokens() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try Self.externalSandbox(folder, quota: 0)
        defer { sandbox.stop() }
        let setup = try ContextAPITests.Setup(folder: folder.appendingPathComponent("data"), external: sandbox)
        defer { setup.stop() }
        let token = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:full", json: ContextAPITests.trip(delay: 1)).status == 201)
        let response = try setup.admin("POST", "/v1/contexts/trip:full/start", json: Self.startBody(setup.userID))
        #expect(response.json?["channelId"] == nil)
        #expect((response.json?["channelFallback"] as? String)?.contains("CannotCreateChannelConfig") == true, "\(response.text)")
        #expect(await eventually { setup.aps(token).count == 1 })
        #expect(setup.aps(token).first?["input-push-token"] as? Int == 1)
    }
}
