import Foundation
import LivelineClient
import LivelineModel
import LivelineTestSupport
import LivelineTransitModel
import Synchronization
import Testing

/// The revision guard, freshness and the reconciler, against a real server where it matters.
@Suite struct ReconcilerTests {
    @Test func outOfOrderAnswersNeverRollTheCardBack() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client()
        #expect(try server.admin("PUT", "/v1/contexts/trip:order", json: ClientTestServer.trip(delay: 1)).status == 201)
        try await client.register(.update, token: ClientTests.token, contextKey: "trip:order")
        guard case .snapshot(let older) = try await client.pull(TripLiveActivityAttributes.self, contextKey: "trip:order", sinceRev: nil) else {
            Issue.record("rev 1")
            return
        }
        #expect(try server.admin("PUT", "/v1/contexts/trip:order", json: ClientTestServer.trip(delay: 5)).status == 200)
        guard case .snapshot(let newer) = try await client.pull(TripLiveActivityAttributes.self, contextKey: "trip:order", sinceRev: nil) else {
            Issue.record("rev 2")
            return
        }
        // The answers arrive the other way round.
        var holder = SnapshotHolder<TripLiveActivityAttributes.ContentState>()
        let keptNewer = holder.apply(newer)
        let keptOlder = holder.apply(older)
        #expect(keptNewer)
        #expect(!keptOlder, "an older revision is refused")
        #expect(holder.current?.rev == 2 && holder.current?.state.delay == 5)
        let keptAgain = holder.apply(newer)
        #expect(!keptAgain, "the same revision again changes nothing")

        // An optimistic local change shows at once; the next pull brings the truth even at the same rev.
        var optimistic = newer.state
        optimistic.delay = 99
        holder.applyOptimistic(optimistic, at: Date())
        #expect(holder.current?.state.delay == 99 && holder.isOptimistic && holder.sinceRev == nil)
        let olderOverOptimistic = holder.apply(older)
        #expect(!olderOverOptimistic, "not even an optimistic state lets an older revision in")
        let truthOverOptimistic = holder.apply(newer)
        #expect(truthOverOptimistic, "the server's truth at the same revision replaces the optimistic state")
        #expect(holder.current?.state.delay == 5 && !holder.isOptimistic)
    }

    @Test func theReconcilerReplacesAnOptimisticChangeWithTheNextPull() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let client = server.client()
        #expect(try server.admin("PUT", "/v1/contexts/trip:local", json: ClientTestServer.trip(delay: 2)).status == 201)
        try await client.register(.update, token: ClientTests.token, contextKey: "trip:local")
        let reconciler = client.reconciler(for: TripLiveActivityAttributes.self, contextKey: "trip:local", reportReceipts: false)
        #expect(await reconciler.pushArrived().isApplied)
        guard var state = await reconciler.snapshot?.state else { return }
        state.delay = 30
        await reconciler.applyOptimistic(state)
        #expect(await reconciler.snapshot?.state.delay == 30)
        // The server never took that change: the truth (rev 1, delay 2) comes back.
        #expect(await reconciler.enteredForeground().isApplied)
        #expect(await reconciler.snapshot?.state.delay == 2)
        #expect(await reconciler.isOptimistic == false)
        guard case .unchanged(let rev) = await reconciler.enteredForeground() else {
            Issue.record("nothing new")
            return
        }
        #expect(rev == 1)
    }

    @Test func freshnessComesFromTheLastSuccessfulPull() async throws {
        let clock = ManualClock()
        let attempts = Mutex(0)
        let reconciler = Reconciler<Int>(
            contextKey: "k",
            pull: { _ in
                let attempt = attempts.withLock {
                    $0 += 1; return $0
                }
                if attempt == 2 || attempt == 3 { throw LivelineClientError.network("offline") }
                if attempt >= 5 { throw LivelineClientError.network("offline") }
                return .snapshot(Snapshot(contextKey: "k", rev: attempt, state: attempt, ended: false, receivedAt: clock.now))
            },
            retryDelays: [.milliseconds(1), .milliseconds(1), .milliseconds(1)], clock: clock.function
        )
        #expect(await reconciler.freshness() == .never)
        #expect(await reconciler.reconcile().isApplied)
        #expect(await reconciler.freshness() == .live)
        clock.advance(by: 5 * 60)
        #expect(await reconciler.freshness().description == "updated 5 minutes ago")
        // Two network failures, then an answer: retried with backoff.
        #expect(await reconciler.reconcile().isApplied)
        let afterRetries = attempts.withLock { $0 }
        #expect(afterRetries == 4)
        #expect(await reconciler.freshness() == .live)
        // Offline for good: it gives up, keeps what it has, and does not pretend to be live.
        clock.advance(by: 3 * 60)
        guard case .failed(let error) = await reconciler.reconcile() else {
            Issue.record("it gives up after its tries")
            return
        }
        let afterGivingUp = attempts.withLock { $0 }
        #expect(error == .network("offline") && afterGivingUp == 8)
        #expect(await reconciler.snapshot?.rev == 4)
        #expect(await reconciler.freshness() == .updated(minutesAgo: 3))
        #expect(Freshness.updated(minutesAgo: 1).description == "updated 1 minute ago")
    }

    @Test func aServerThatIsDownIsRetriedThenReportedAsANetworkFailure() async throws {
        // A port nothing listens on for the whole test (a stopped server's port may be taken by
        // a server another test starts meanwhile).
        let dead = try DeadPort()
        defer { withExtendedLifetime(dead) {} }  // held until the test is done
        let client = LivelineClient(baseURL: dead.url, bearerToken: "ll_x")
        let reconciler = client.reconciler(
            for: TripLiveActivityAttributes.self, contextKey: "trip:1", retryDelays: [.milliseconds(5), .milliseconds(5)]
        )
        guard case .failed(let error) = await reconciler.pushArrived() else {
            Issue.record("no server, no snapshot")
            return
        }
        #expect(error.isTransient)
        #expect(await reconciler.freshness() == .never)
    }
}

extension Reconciler.Outcome {
    var isApplied: Bool { if case .applied = self { true } else { false } }
}
