import Foundation
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Synchronization
import Testing

/// An APNs channel management call that hangs never holds an HTTP worker (`docs/reliability.md`,
/// "Overload"): starts that need a broadcast channel answer with `channelFallback` after one
/// bounded wait (1 s; later starts do not wait while APNs has not answered), their devices get
/// update tokens, every other request keeps being served meanwhile, and once APNs answers the
/// channel is linked and carries the next update.
@Suite struct HungChannelManagementTests {
    /// APNs's management port answers this late: far longer than a start may wait.
    static let hang: Duration = .seconds(10)

    struct Started: Sendable {
        var status: Int
        var channelID: String?
        var fallback: String?
        var outcomes: [String]
        var took: Duration
    }

    /// What the callers' threads saw.
    final class Record: Sendable {
        private let state = Mutex<(starts: [String: Started], reads: [(status: Int, took: Duration)])>(([:], []))
        var starts: [String: Started] { state.withLock { $0.starts } }
        var startCount: Int { state.withLock { $0.starts.count } }
        var reads: [(status: Int, took: Duration)] { state.withLock { $0.reads } }
        func started(_ key: String, _ started: Started) { state.withLock { $0.starts[key] = started } }
        func read(status: Int, took: Duration) { state.withLock { $0.reads.append((status, took)) } }
    }

    /// Runs each job on a thread of its own (blocking HTTP calls: not on the cooperative pool)
    /// and waits for all.
    static func onThreads(_ jobs: [@Sendable () -> Void]) {
        let group = DispatchGroup()
        for job in jobs {
            group.enter()
            Thread.detachNewThread {
                job()
                group.leave()
            }
        }
        group.wait()
    }

    @Test func startsAnswerWithTheFallbackAndOtherRequestsAreServedWhileAManagementCallHangs() async throws {
        // Two workers whatever the machine: four starts would hold both for the whole hang
        // if a start waited for APNs.
        let setup = try ContextAPITests.Setup(.live) {
            $0.minimumPushInterval = 0
            $0.httpThreads = 2
            $0.channelCreationWait = 1  // the product's default, not the tests' longer one
        }
        defer { setup.stop() }
        let startToken = try setup.startDevice(0, type: "TripLiveActivityAttributes")
        let keys = (0..<4).map { "trip:hung-\($0)" }
        for key in keys { #expect(try setup.admin("PUT", "/v1/contexts/\(key)", json: ContextAPITests.trip(delay: 1)).status == 201) }
        setup.sandbox.setFaults(SandboxFaults(seed: 1, managementLatency: Self.hang))
        let began = ContinuousClock.now

        let record = Record()
        let (port, startBody) = (try setup.server.port, ChannelTests.startBody(setup.userID))
        @Sendable func admin(_ method: String, _ path: String, json: String? = nil) -> TestHTTPConnection.Response? {
            try? TestHTTPConnection(port: port, timeout: 30).request(
                method, path, headers: ["Authorization": "Bearer \(ContextAPITests.adminKey)"], body: json.map { Array($0.utf8) })
        }
        var jobs: [@Sendable () -> Void] = keys.map { key in
            {
                let sent = ContinuousClock.now
                let response = admin("POST", "/v1/contexts/\(key)/start", json: startBody)
                let outcomes = (response?.json?["starts"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
                record.started(
                    key,
                    Started(
                        status: response?.status ?? 0, channelID: response?.json?["channelId"] as? String,
                        fallback: response?.json?["channelFallback"] as? String, outcomes: outcomes, took: ContinuousClock.now - sent))
            }
        }
        // Meanwhile other callers read a context and the metrics, on connections of their own.
        for path in ["/v1/contexts/\(keys[0])", "/metrics"] {
            jobs.append {
                while record.startCount < keys.count || record.reads.count < 20 {
                    let sent = ContinuousClock.now
                    let status = admin("GET", path)?.status ?? 0
                    record.read(status: status, took: ContinuousClock.now - sent)
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
        }
        Self.onThreads(jobs)
        let answered = ContinuousClock.now - began

        let started = record.starts
        let reads = record.reads
        let slowestStart = started.values.map(\.took).max() ?? .zero
        let slowestRead = reads.map(\.took).max() ?? .zero
        print(
            "hung channel management (\(TestBackend.isPostgres ? "PostgreSQL" : "SQLite")): \(keys.count) starts answered in \(slowestStart) at most, "
                + "\(reads.count) reads meanwhile, the slowest \(slowestRead); all within \(answered) of a \(Self.hang) hang")
        #expect(started.count == keys.count)
        for key in keys {
            let start = try #require(started[key])
            #expect(start.status == 200, "\(key)")
            #expect(start.channelID == nil, "\(key): no channel yet")
            #expect(start.fallback?.contains("has not answered its creation") == true, "\(key): \(start.fallback ?? "no fallback")")
            #expect(start.took < .seconds(6), "\(key) answered after \(start.took), while APNs hangs for \(Self.hang)")
        }
        #expect(started.values.allSatisfy { $0.outcomes == ["queued"] }, "the device is started, with an update token")
        #expect(reads.allSatisfy { $0.status == 200 }, "every read answered 200")
        #expect(slowestRead < .seconds(6), "no read waited for the hung management call: the slowest took \(slowestRead)")
        #expect(answered < Self.hang, "everything answered before APNs did")
        // The starts went out with `input-push-token`, not waiting for the channel.
        #expect(await eventually { setup.aps(startToken).count == keys.count })
        #expect(setup.aps(startToken).allSatisfy { $0["input-push-token"] as? Int == 1 && $0["input-push-channel"] == nil })

        // APNs answers in the end: the creation went on in the background and links each channel.
        setup.sandbox.setFaults(SandboxFaults(seed: 1))
        let store = setup.server.app.store
        #expect(
            try await eventually(timeout: 30) {
                try keys.allSatisfy { try store.channels.contextChannel(key: $0, environment: .sandbox) != nil }
            })
        #expect(setup.sandbox.channels().count == keys.count, "one channel per context, however many starts waited")
        let channelID = try #require(try store.channels.contextChannel(key: keys[0], environment: .sandbox))
        // A later start has it at once, and the next update is broadcast on it.
        let again = try setup.admin("POST", "/v1/contexts/\(keys[0])/start", json: ChannelTests.startBody(setup.userID))
        #expect(again.json?["channelId"] as? String == channelID)
        #expect(again.json?["channelFallback"] == nil)
        #expect(try setup.admin("PUT", "/v1/contexts/\(keys[0])", json: ContextAPITests.trip(delay: 7)).status == 200)
        #expect(
            await eventually {
                setup.sandbox.accepted(channel: channelID).contains { push in
                    let aps = (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
                    return (aps?["content-state"] as? [String: Any])?["delay"] as? Int == 7
                }
            })
    }
}
