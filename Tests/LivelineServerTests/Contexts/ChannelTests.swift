import Foundation
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// Broadcast channels end to end (`docs/engine.md`, "Broadcast channels"): created on the first start
/// that asks for one, used for updates, deleted after the end, orphans deleted on a restart, and
/// token fan-out when APNs will not create one.
@Suite struct ChannelTests {
    static func startBody(_ userID: UserID) -> String {
        #"{"userIds":[\#(userID)],"alert":{"title":"Shopping"},"useChannel":true}"#
    }

    /// An APNs client of the test's own, to make channels no row knows.
    static func client(of sandbox: APNSSandbox) throws -> APNSClient {
        try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: APNSCredentials(keyID: sandbox.keyID, teamID: sandbox.teamID, key: sandbox.signingKey),
                environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: sandbox.certificateFile.path)
            ))
    }

    @Test func aChannelIsCreatedOnTheFirstStartCarriesTheUpdatesAndIsDeletedAfterTheEnd() async throws {
        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(clock: clock) { $0.minimumPushInterval = 0 }  // the clock stands still
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

        // A start with a channel gets no update token back, and is not suspect for that.
        #expect(try await eventually { try setup.server.app.store.starts.starts(contextKey: "trip:chan").first?.status == .sent })
        clock.advance(by: 10 * 60)
        setup.server.app.engine.sweepLifecycle()
        #expect(try setup.server.app.store.starts.starts(contextKey: "trip:chan").first?.suspectAt == nil)
        #expect(try setup.server.app.store.tokens.suspectCount() == 0)

        #expect(try setup.admin("PUT", "/v1/contexts/trip:chan", json: ContextAPITests.trip(delay: 4)).status == 200)
        let onChannel = {
            setup.sandbox.accepted(channel: channelID).compactMap { push -> [String: Any]? in
                (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
            }
        }
        #expect(await eventually { (onChannel().last?["content-state"] as? [String: Any])?["delay"] as? Int == 4 })

        // The end meets a failing APNs first: the channel stays until the end reached it.
        setup.sandbox.setFaults(SandboxFaults(seed: 3, internalErrorShare: 1))
        #expect(try setup.admin("POST", "/v1/contexts/trip:chan/end").status == 200)
        #expect(
            try await eventually {
                try setup.server.app.store.deliveries.attempts(contextKey: "trip:chan").contains { $0.targetKind == .channel && $0.status == 500 }
            })
        // Drained: the failed end is recorded and its retry waits for the clock; a deletion enqueued
        // by mistake would be due now and sent before the dispatcher is idle.
        #expect(try await eventually { try setup.dispatcherIsIdle() })
        #expect(setup.sandbox.channels() == [channelID], "not deleted while the end has not reached it")
        setup.sandbox.setFaults(SandboxFaults(seed: 3))
        clock.advance(by: 5)  // past the retry's backoff
        setup.server.app.store.outbox.notifyEnqueued()
        #expect(await eventually { onChannel().last?["event"] as? String == "end" })
        #expect(await eventually { setup.sandbox.channels().isEmpty }, "deleted after the end")
        #expect(try await eventually { try setup.server.app.store.channels.channel(id: channelID)?.isActive == false })
        #expect(try setup.server.app.store.channels.contextChannel(key: "trip:chan", environment: .sandbox) == nil)
    }

    @Test func anOrphanChannelIsDeletedWhenTheServerStartsAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APISetup.externalSandbox(folder)
        defer { sandbox.stop() }
        let data = folder.appendingPathComponent("data")

        let first = try ContextAPITests.Setup(folder: data, external: sandbox)
        _ = try first.startDevice(0, type: "TripLiveActivityAttributes")
        #expect(try first.admin("PUT", "/v1/contexts/trip:kept", json: ContextAPITests.trip(delay: 1)).status == 201)
        let kept = try #require(
            try first.admin("POST", "/v1/contexts/trip:kept/start", json: Self.startBody(first.userID)).json?["channelId"] as? String)
        first.stop(keepData: true)

        // A channel no row knows (e.g. created by a run that crashed before recording it).
        let client = try Self.client(of: sandbox)
        defer { client.shutdown() }
        let orphan = try #require(await client.createChannel(bundleID: sandbox.bundleID).channelID)
        #expect(Set(sandbox.channels()) == [kept, orphan])

        let second = try ContextAPITests.Setup(folder: data, external: sandbox) { $0.orphanChannelGrace = 0 }
        defer { second.stop() }
        #expect(await eventually { sandbox.channels() == [kept] }, "orphan deleted, the recorded one kept: \(sandbox.channels())")
        #expect(try second.server.app.store.channels.channel(id: kept)?.isActive == true)
    }

    /// A channel is created at APNs before its row is written, so a reconcile may list one whose
    /// row it cannot read yet (seen: a start's new channel deleted as an orphan by the reconcile
    /// of the server's start). Orphans are deleted after a grace, and only if no context took
    /// the channel meanwhile.
    @Test func aChannelListedBeforeItsRowWasWrittenIsNotDeletedAsAnOrphan() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APISetup.externalSandbox(folder)
        defer { sandbox.stop() }
        let client = try Self.client(of: sandbox)
        defer { client.shutdown() }
        // `creating`: made at APNs, its row not written yet when the server starts; `orphan`: no row ever.
        let creating = try #require(await client.createChannel(bundleID: sandbox.bundleID).channelID)
        let orphan = try #require(await client.createChannel(bundleID: sandbox.bundleID).channelID)

        let clock = ManualClock()
        let setup = try ContextAPITests.Setup(folder: folder.appendingPathComponent("data"), external: sandbox, clock: clock)
        defer { setup.stop() }
        let store = setup.server.app.store
        // The start's reconcile saw both as orphans: two deletions queued, not due before the grace.
        #expect(try await eventually { try store.outbox.depth(now: clock.now).due == 2 })
        #expect(try setup.dispatcherIsIdle())
        #expect(Set(sandbox.channels()) == [creating, orphan])

        // The creation finishes: its row is written and the context takes the channel.
        #expect(try setup.admin("PUT", "/v1/contexts/trip:race", json: ContextAPITests.trip(delay: 1)).status == 201)
        try store.write { transaction in
            _ = try store.channels.insert(
                channelID: creating, purpose: "context", ownerKind: .context, owner: "trip:race", storagePolicy: 1, environment: "sandbox",
                now: clock.now, in: transaction
            )
            try store.channels.link(contextKey: "trip:race", environment: .sandbox, channelID: creating, in: transaction)
        }

        clock.advance(by: 61)
        store.outbox.notifyEnqueued()
        #expect(await eventually { sandbox.channels() == [creating] }, "the orphan deleted, the one in use kept: \(sandbox.channels())")
        #expect(try await eventually { try store.outbox.depth(now: clock.now).due == 0 && setup.dispatcherIsIdle() })
        #expect(sandbox.channels() == [creating])
        #expect(try store.channels.channel(id: creating)?.isActive == true)
        #expect(try store.channels.contextChannel(key: "trip:race", environment: .sandbox) == creating)
    }

    @Test func whenAPNSWillNotCreateAChannelTheStartFallsBackToTokens() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APISetup.externalSandbox(folder, quota: 0)
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
