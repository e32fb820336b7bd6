import Foundation
@testable import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import Testing

/// One engine, two APNs environments (a development build's tokens beside App Store builds'):
/// each token's pushes go through its own environment's sender, and only there — a sandbox
/// answers `400 BadDeviceToken` to a token it does not know, as APNs does to a token of the
/// other environment.
@Suite struct EnvironmentRoutingTests {
    /// `trip:1`'s state, through the engine.
    static func putTrip(_ engine: Engine, delay: Int = 6) throws {
        let state =
            #"{"currentStop":"A","nextStop":"B","nextStopTime":803461320,"remainingTime":240,"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}"#
        try engine.putContext(
            key: "trip:1",
            PutContextRequest(
                type: "TripLiveActivityAttributes", attributes: try JSONValue(json: Data(#"{"tripId":"t","line":"5","destination":"B"}"#.utf8)),
                contentState: try JSONValue(json: Data(state.utf8))
            ))
    }

    /// A production sandbox beside the harness's development one, and a client of it.
    static func production(beside harness: DispatcherTests.Harness) throws -> (APNSSandbox, APNSClient) {
        // Its own key: the engine is given a sender per environment, however they sign.
        let production = try APNSSandbox.start(
            SandboxConfiguration(folder: harness.folder.appendingPathComponent("production"), environment: .production))
        do {
            let client = try APNSClient(
                configuration: APNSClientConfiguration(
                    credentials: APNSCredentials(keyID: production.keyID, teamID: production.teamID, key: production.signingKey),
                    environment: .local(
                        devicePort: production.devicePort, managementPort: production.managementPort, caFile: production.certificateFile.path)
                ))
            return (production, client)
        } catch {
            production.stop()
            throw error
        }
    }

    /// The harness (its sandbox and client: development) and a production sandbox beside it.
    final class TwoEnvironments {
        let harness: DispatcherTests.Harness
        let production: APNSSandbox
        let productionClient: APNSClient

        init() throws {
            harness = try DispatcherTests.Harness()
            do {
                (production, productionClient) = try EnvironmentRoutingTests.production(beside: harness)
            } catch {
                harness.stop()
                throw error
            }
        }

        /// An engine pushing to both: development the default environment.
        func engine(_ configuration: EngineConfiguration) -> Engine {
            var configuration = configuration
            configuration.channelCreationWait = 30  // a loaded machine's sandbox, not a slow APNs
            return Engine(
                store: harness.store, sender: harness.client, otherSenders: [.production: productionClient], configuration: configuration,
                registry: .builtIn)
        }

        func stop() {
            production.stop()
            productionClient.shutdown()
            harness.stop()
        }
    }

    @Test func eachTokenIsPushedThroughItsOwnEnvironmentAndNowhereElse() async throws {
        let both = try TwoEnvironments()  // the harness's sandbox and client: development
        defer { both.stop() }
        let (harness, production) = (both.harness, both.production)
        var configuration = EngineConfiguration(bundleID: harness.sandbox.bundleID, environment: .sandbox, minimumPushInterval: 0)
        configuration.tokenPageSize = 1  // a fan-out's pages: one token each, environment after environment
        let engine = both.engine(configuration)
        #expect(engine.configuration.environments == [.sandbox, .production])

        // A debug build's phone and an App Store build's, both showing the trip; each can also be started.
        let debugPhone = String(repeating: "d1", count: 32)
        let storePhone = String(repeating: "a5", count: 32)
        harness.sandbox.registerDevice(token: debugPhone)
        production.registerDevice(token: storePhone)
        let debugStart = String(repeating: "d2", count: 32)
        let storeStart = String(repeating: "a6", count: 32)
        harness.sandbox.registerDevice(token: debugStart)
        production.registerDevice(token: storeStart)
        // The App Store build's phone first: its id is below the debug build's, so the
        // production pages read from the start, not from where development's stopped.
        for (index, token, kind, environment) in [
            (1, storePhone, PushTokenKind.update, PushEnvironment.production), (0, debugPhone, .update, .sandbox),
            (2, debugStart, .pushToStart, .sandbox), (3, storeStart, .pushToStart, .production),
        ] {
            try harness.store.tokens.register(
                TokenRegistration(
                    householdID: harness.householdID, userID: harness.userID, deviceID: "phone-\(index)", kind: kind, environment: environment,
                    token: token, attributesType: kind == .pushToStart ? "TripLiveActivityAttributes" : nil,
                    contextKey: kind == .update ? "trip:1" : nil
                ), now: Date())
        }

        try Self.putTrip(engine)
        let started = try engine.startActivities(
            contextKey: "trip:1", userIDs: [harness.userID], deviceIDs: [], alert: LiveActivityAlert(title: "S5"), useChannel: true)
        #expect(started.outcomes.filter { $0.kind == .queued }.count == 2, "\(started.outcomes)")
        let channelID = try #require(started.channelIDs[.sandbox])
        let productionChannel = try #require(started.channelIDs[.production], "a channel in each environment its devices are in")
        #expect(started.channelID == channelID, "the default environment's is the one answered")
        engine.dispatcher.drain()

        #expect(harness.sandbox.accepted(token: debugPhone).count == 1)
        #expect(production.accepted(token: storePhone).count == 1)
        let statuses = try harness.store.deliveries.attempts(contextKey: "trip:1").map(\.status)
        #expect(statuses.allSatisfy { $0 == 200 }, "nothing went to the wrong environment: \(statuses)")
        // Each environment's devices start on that environment's channel.
        func aps(_ push: AcceptedPush?) -> [String: Any]? {
            push.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["aps"] as? [String: Any] }
        }
        #expect(aps(harness.sandbox.accepted(token: debugStart).first)?["input-push-channel"] as? String == channelID)
        #expect(aps(production.accepted(token: storeStart).first)?["input-push-channel"] as? String == productionChannel)
        #expect(harness.sandbox.channels() == [channelID] && production.channels() == [productionChannel])

        // The next update: broadcast on both channels, each through its own environment, and to both update tokens.
        try Self.putTrip(engine, delay: 9)
        engine.dispatcher.drain()
        func delay(_ push: AcceptedPush?) -> Int? { (aps(push)?["content-state"] as? [String: Any])?["delay"] as? Int }
        #expect(delay(harness.sandbox.accepted(channel: channelID).last) == 9)
        #expect(delay(production.accepted(channel: productionChannel).last) == 9)
        #expect(delay(harness.sandbox.accepted(token: debugPhone).last) == 9 && delay(production.accepted(token: storePhone).last) == 9)
        let attempts = try harness.store.deliveries.attempts(contextKey: "trip:1")
        #expect(attempts.allSatisfy { $0.status == 200 }, "nothing went to the wrong environment: \(attempts.map(\.status))")
        // Each delivery is recorded with the environment it went to.
        let environments = Dictionary(attempts.map { ($0.target, $0.environment) }, uniquingKeysWith: { first, _ in first })
        #expect(environments[channelID] == .sandbox && environments[productionChannel] == .production)

        // The end reaches both channels; then each is deleted in its own environment.
        _ = try engine.endContext(key: "trip:1")
        engine.dispatcher.drain()
        #expect(aps(production.accepted(channel: productionChannel).last)?["event"] as? String == "end")
        #expect(harness.sandbox.channels().isEmpty && production.channels().isEmpty, "\(harness.sandbox.channels()) \(production.channels())")
        #expect(try harness.store.channels.channel(id: productionChannel)?.isActive == false)
        #expect(production.accepted(token: debugPhone).isEmpty && harness.sandbox.accepted(token: storePhone).isEmpty)
    }

    /// A token registered without an environment took the default one (development); APNs
    /// answers it `BadDeviceToken` there because it is an App Store build's. It is tried in
    /// production once, delivered, and recorded there — not called dead. A token whose app said
    /// its environment is dead after the same answer, as before.
    @Test func aTokenOfTheOtherEnvironmentRegisteredWithoutOneIsDeliveredThereNotKilled() async throws {
        let both = try TwoEnvironments()  // the harness's sandbox and client: development
        defer { both.stop() }
        let (harness, production) = (both.harness, both.production)
        let engine = both.engine(
            EngineConfiguration(
                bundleID: harness.sandbox.bundleID, environment: .sandbox,
                retryPolicy: RetryPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(50), maximumAttempts: 5),
                minimumPushInterval: 0))
        let guessed = String(repeating: "a7", count: 32)
        let said = String(repeating: "a8", count: 32)
        let guessedStart = String(repeating: "a9", count: 32)
        production.registerDevice(token: guessed)
        production.registerDevice(token: said)
        production.registerDevice(token: guessedStart)
        try harness.store.tokens.register(
            TokenRegistration(
                householdID: harness.householdID, userID: harness.userID, deviceID: "phone-2", kind: .pushToStart, environment: .sandbox,
                token: guessedStart, attributesType: "TripLiveActivityAttributes", environmentSource: .default
            ), now: Date())
        for (index, token, source) in [(0, guessed, PushEnvironmentSource.default), (1, said, .app)] {
            try harness.store.tokens.register(
                TokenRegistration(
                    householdID: harness.householdID, userID: harness.userID, deviceID: "phone-\(index)", kind: .update, environment: .sandbox,
                    token: token, contextKey: "trip:1", environmentSource: source
                ), now: Date())
        }
        try Self.putTrip(engine)
        let started = try engine.startActivities(
            contextKey: "trip:1", userIDs: [harness.userID], deviceIDs: [], alert: LiveActivityAlert(title: "S5"), useChannel: true)
        #expect(started.outcomes.map(\.kind) == [.queued])
        #expect(started.channelIDs.keys.sorted { $0.rawValue < $1.rawValue } == [.sandbox], "the guess's environment has one")
        // Drained on a thread of its own (a sleep on the threads every test's async code shares
        // can resume long after the deadline under the full suite's load).
        _ = try await offThePool {
            eventuallyBlocking(timeout: 10) {
                engine.dispatcher.drain()
                return !production.accepted(token: guessed).isEmpty && !production.accepted(token: guessedStart).isEmpty
            }
        }
        engine.dispatcher.drain()
        #expect(production.accepted(token: guessed).count == 1, "delivered through production")
        let movedID = try #require(try harness.store.tokens.activeTokens(userID: harness.userID).first { $0.token == guessed }?.id)
        let moved = try #require(try harness.store.tokens.record(id: movedID))
        #expect(moved.environment == .production && moved.environmentSource == .learned && moved.status == .active)
        let saidRecord = try harness.store.tokens.activeTokens(userID: harness.userID).first { $0.token == said }
        #expect(saidRecord == nil, "the app said development: BadDeviceToken there kills it, as before")
        #expect(production.accepted(token: said).isEmpty)
        #expect(production.accepted(token: guessedStart).count == 1, "the start too")
        #expect(try harness.store.starts.starts(contextKey: "trip:1").map(\.status) == [.sent], "the start is APNs' accepted one, not failed")
        let attempts = try harness.store.deliveries.attempts(contextKey: "trip:1").map(\.status).sorted()
        #expect(attempts == [200, 200, 200, 400, 400, 400], "the channel, the moved tokens; three BadDeviceTokens: \(attempts)")
        // A device whose environment is a guess starts with an update token, not on the guessed
        // environment's channel: it may move (and did), and that channel is not the other's.
        let startPayload = try #require(production.accepted(token: guessedStart).first?.payload)
        let aps = (try JSONSerialization.jsonObject(with: Data(startPayload)) as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?["input-push-token"] as? Int == 1 && aps?["input-push-channel"] == nil, "\(aps ?? [:])")

        // The app rotates the learned token, still without an environment: the new one goes where
        // the device was learned to be, replacing the old — not a guess in development again.
        let rotated = String(repeating: "b7", count: 32)
        production.registerDevice(token: rotated)
        let outcome = try engine.registerTokenAsStored(
            TokenRegistration(
                householdID: harness.householdID, userID: harness.userID, deviceID: "phone-0", kind: .update, environment: .sandbox,
                token: rotated, contextKey: "trip:1", environmentSource: .default))
        #expect(outcome.outcome == .replaced && outcome.stored.environment == .production && outcome.stored.environmentSource == .learned)
        engine.dispatcher.drain()
        #expect(production.accepted(token: rotated).count == 1, "caught up through production")
        let active = try harness.store.tokens.activeTokens(userID: harness.userID).filter { $0.deviceID == "phone-0" }
        #expect(active.map(\.token) == [rotated] && active.first?.environment == .production)
        #expect(harness.sandbox.accepted(token: rotated).isEmpty)
        let after = try harness.store.deliveries.attempts(contextKey: "trip:1").filter { $0.status == 400 }.count
        #expect(after == 3, "no new BadDeviceToken")
    }

    /// In the other environment, channels no row knows are left alone: another server of the app
    /// (a production one beside this staging one) may own them. In the default one they go.
    @Test func theOtherEnvironmentsUnknownChannelsAreLeftAlone() async throws {
        let both = try TwoEnvironments()  // the harness's sandbox and client: development
        defer { both.stop() }
        let (harness, production, productionClient) = (both.harness, both.production, both.productionClient)
        let theirs = try #require(await productionClient.createChannel(bundleID: harness.sandbox.bundleID).channelID)
        let orphan = try #require(await harness.client.createChannel(bundleID: harness.sandbox.bundleID).channelID)
        let engine = both.engine(
            EngineConfiguration(bundleID: harness.sandbox.bundleID, environment: .sandbox, orphanChannelGrace: 0))
        #expect(engine.channels.reconcile(now: Date()))
        engine.dispatcher.drain()
        #expect(harness.sandbox.channels().isEmpty, "the default environment's orphan \(orphan) is deleted")
        #expect(production.channels() == [theirs], "the other environment's is left alone")
    }
}
