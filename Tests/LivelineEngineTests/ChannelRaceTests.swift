import Foundation
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import Testing

/// Two instances starting one context at once may each create a channel at APNs: the first link
/// wins, the second instance uses it and deletes its own (`docs/engine.md`, "Broadcast channels").
@Suite struct ChannelRaceTests {
    /// APNs as seen by an instance whose channel creation another instance overtakes: while
    /// APNs is creating this one, the other instance links its own channel to the context.
    final class Overtaken: PushSender {
        let inner = RecordingPushSender()
        let overtake: @Sendable () throws -> Void
        init(overtake: @escaping @Sendable () throws -> Void) { self.overtake = overtake }
        func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void) {
            inner.send(notification, completion: completion)
        }
        func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void) {
            inner.broadcast(broadcast, completion: completion)
        }
        func createChannel(bundleID: String, storagePolicy: APNSChannelStoragePolicy, completion: @escaping @Sendable (APNSResult) -> Void) {
            try? overtake()
            inner.createChannel(bundleID: bundleID, storagePolicy: storagePolicy, completion: completion)
        }
        func deleteChannel(bundleID: String, channelID: String, completion: @escaping @Sendable (APNSResult) -> Void) {
            inner.deleteChannel(bundleID: bundleID, channelID: channelID, completion: completion)
        }
        func listChannels(bundleID: String, completion: @escaping @Sendable (_ channels: [String]?, _ result: APNSResult) -> Void) {
            inner.listChannels(bundleID: bundleID, completion: completion)
        }
    }

    @Test func aChannelLinkedByAnotherInstanceMeanwhileIsUsedAndOursDeleted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-channel-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try TestBackend.openStore(folder: folder)
        let theirs = "dGhlaXJz"
        let sender = Overtaken {
            try store.write { transaction in
                try store.channels.insert(
                    channelID: theirs, purpose: "context", ownerKind: .context, owner: "trip:1", storagePolicy: 1, environment: "sandbox",
                    now: Date(), in: transaction)
                try store.channels.link(contextKey: "trip:1", environment: .sandbox, channelID: theirs, in: transaction)
            }
        }
        let engine = Engine(
            store: store, sender: sender, configuration: EngineConfiguration(bundleID: "dev.liveline.demo", minimumPushInterval: 0),
            registry: .builtIn)
        try EnvironmentRoutingTests.putTrip(engine)
        let started = try engine.startActivities(
            contextKey: "trip:1", userIDs: [], deviceIDs: [], alert: LiveActivityAlert(title: "S5"), useChannel: true)
        #expect(started.channelID == theirs, "the channel linked first is the context's")
        engine.dispatcher.drain()
        let deleted = sender.inner.requests.compactMap { if case .deleteChannel(_, let id) = $0 { id } else { nil } }
        let ours = try #require(sender.inner.requests.contains { if case .createChannel = $0 { true } else { false } } ? deleted.first : nil)
        #expect(ours != theirs && deleted == [ours], "ours is deleted at APNs, theirs kept")
        #expect(try store.channels.contextChannel(key: "trip:1", environment: .sandbox) == theirs)
    }
}
