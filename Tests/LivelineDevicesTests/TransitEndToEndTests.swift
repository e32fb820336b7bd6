import Foundation
import LivelineClient
import LivelineDevices
import LivelineModel
import LivelineStore
import LivelineTestSupport
import LivelineTransit
import LivelineTransitModel
import Testing

/// A tram ride end to end (`docs/features/transit.md`): the server on a moving manual clock with
/// the demo feed, the demo's recorded real-time sequence replayed into the file it reads
/// (`LIVELINE_GTFS_RT_URL`), simulated iPhones whose apps start the card themselves or get it by
/// push-to-start, every push through the APNs sandbox.
@Suite struct TransitEndToEndTests {
    /// 2026-06-18 `hour:minute:second` in Berlin (UTC+2).
    static func berlin(_ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        Date(timeIntervalSince1970: 1_781_733_600 + TimeInterval(hour * 3600 + minute * 60 + second))
    }

    final class Scene {
        let realtime = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-rt-\(UUID().uuidString).pb")
        let harness: DeviceHarness
        let snapshots = DemoFeed.snapshots.compactMap { try? RealtimeFeed.decode($0) }

        init() throws {
            let path = realtime.path
            harness = try DeviceHarness(serverOnClock: true) { $0.environment["LIVELINE_GTFS_RT_URL"] = path }
            harness.clock.advance(by: TransitEndToEndTests.berlin(7, 55).timeIntervalSince(harness.clock.now))
            try publish()
        }

        /// The snapshot in effect at the clock's time (the latest not after it), into the file:
        /// replaced whole (written beside it, then renamed), as a feed server serves it, so the
        /// dispatcher's sweep reading it meanwhile never gets half a snapshot.
        func publish() throws {
            let now = Int(harness.clock.now.timeIntervalSince1970)
            guard let snapshot = snapshots.last(where: { ($0.header.timestamp ?? 0) <= now }) else { return }
            try Data(snapshot.encoded()).write(to: realtime, options: .atomic)
        }

        /// Moves the clock by `seconds`, feeding `publish` when `live`, and lets the server and phones
        /// catch up: nothing due now is left in the outbox (the manual clock must not run ahead of
        /// the dispatcher) and the phones have what the sandbox accepted.
        func advance(by seconds: TimeInterval, live: Bool = true) async throws {
            harness.clock.advance(by: seconds)
            if live { try publish() }
            harness.app.engine.sweepLifecycle()
            let outbox = harness.app.store.outbox
            let clock = harness.clock
            _ = await harness.until(timeout: 10) {
                (try? outbox.depth(now: clock.now)).map { $0.leased == 0 && $0.oldestDueAge == nil } ?? false
            }
        }

        func card(_ phone: SimulatedDevice, _ id: String) -> TripLiveActivityAttributes.ContentState? {
            phone.activity(contextKey: "trip:\(id)").flatMap {
                try? JSONDecoder().decode(TripLiveActivityAttributes.ContentState.self, from: $0.contentState.compactJSON)
            }
        }

        deinit {
            harness.stop()
            try? FileManager.default.removeItem(at: realtime)
        }
    }

    @Test func aRideGoesFromBeforeDepartureToArrivedOnEveryPhoneAndEndsThirtySecondsAfterTheArrival() async throws {
        let scene = try Scene()
        let harness = scene.harness
        let (jaqueline, phones) = try await harness.couple()
        let dennis = harness.client(deviceID: "dennis-phone")
        let her = harness.client(bearer: jaqueline.bearer, deviceID: "jaqueline-phone")

        // Dennis's app starts his card itself; Jaqueline's ride is started on her devices by push.
        let mine = try await dennis.startTrip(
            StartTripRequest(tripId: DemoFeed.tripID, fromStopId: "mannheim-paradeplatz", toStopId: "heidelberg-hauptbahnhof"))
        let attributes = try #require(mine.attributes)
        let state = try #require(mine.state)
        harness.fleet.startLocally(
            device: "dennis-phone", attributesType: TripLiveActivityAttributes.typeName,
            attributes: try JSONValue(json: JSONEncoder().encode(attributes)), contentState: try JSONValue(json: JSONEncoder().encode(state)),
            channelID: nil)
        let hers = try await her.startTrip(
            StartTripRequest(tripId: DemoFeed.tripID, fromStopId: "mannheim-wasserturm", toStopId: "edingen-bahnhof", start: "push"))
        #expect(hers.starts?.map(\.outcome).sorted() == ["queued", "queued"], "\(hers.starts ?? [])")
        let rides = [(phones[0], mine.id), (phones[1], hers.id), (phones[2], hers.id)]
        #expect(await harness.until { rides.allSatisfy { scene.card($0.0, $0.1) != nil } }, "every phone shows its card")
        #expect(scene.card(phones[1], hers.id)?.phase == .beforeDeparture && scene.card(phones[1], hers.id)?.currentStop == "Wasserturm")

        var phases: [String: [TripPhase]] = [:]
        var delays: [String: Set<Int>] = [:]
        var checked = false
        while harness.clock.now < Self.berlin(8, 50) {
            try await scene.advance(by: 5)
            for (phone, id) in rides {
                guard let card = scene.card(phone, id) else { continue }
                if phases[phone.id]?.last != card.phase { phases[phone.id, default: []].append(card.phase) }
                delays[phone.id, default: []].insert(card.delay)
            }
            // Mid-ride, each card is what the server says the ride is now.
            if !checked, harness.clock.now >= Self.berlin(8, 20) {
                checked = true
                for (phone, id) in rides {
                    let truth = try #require(try await dennis.trip(id).state)
                    let shown = try #require(scene.card(phone, id))
                    #expect(
                        (shown.phase, shown.currentStop, shown.nextStop, shown.delay) == (
                            truth.phase, truth.currentStop, truth.nextStop, truth.delay
                        ),
                        "\(phone.id): \(shown) vs \(truth)")
                }
            }
        }
        for phone in phones {
            #expect(phases[phone.id] == [.beforeDeparture, .inProgress, .arrived], "\(phone.id): \(phases[phone.id] ?? [])")
            #expect((delays[phone.id] ?? []).contains { $0 >= 2 }, "\(phone.id) showed the delay: \(delays[phone.id] ?? [])")
        }
        // The end: the arrival time as the card has it, and the dismissal 30 s later.
        for (phone, id) in rides {
            let activity = try #require(phone.activities.last { $0.contextKey == "trip:\(id)" })
            let card = try #require(scene.card(phone, id))
            let dismissal = try #require(activity.dismissAt, "\(phone.id) has its end")
            // 30 s after the arrival (the card's nextStopTime once arrived), whenever the end was sent.
            let after = dismissal.timeIntervalSince(card.nextStopTime)
            #expect(abs(after - 30) <= 1, "\(phone.id): dismissed \(after) s after the arrival")
        }
        // At most 15 priority-10 pushes an hour per ride.
        for phone in phones {
            let accepted = phone.tokens.flatMap { harness.sandbox.accepted(token: $0) }.filter { $0.pushType == "liveactivity" }
            #expect(accepted.filter { $0.priority == 10 }.count <= 15, "\(phone.id)")
        }
    }

    @Test func aStaleFeedTurnsTheCardToScheduledTimesWithinOnePoll() async throws {
        let scene = try Scene()
        let harness = scene.harness
        let phone = await harness.phone("dennis-phone")
        let client = harness.client(deviceID: "dennis-phone")
        let ride = try await client.startTrip(
            StartTripRequest(tripId: DemoFeed.tripID, fromStopId: "mannheim-paradeplatz", toStopId: "heidelberg-bismarckplatz", start: "push"))
        #expect(ride.realtime == true)
        while harness.clock.now < Self.berlin(8, 20) { try await scene.advance(by: 5) }
        let live = try #require(scene.card(phone, ride.id))
        #expect(live.delay > 0 && live.occupancy != .unknown, "\(live)")
        // The feed stops: its last snapshot ages past 65 s; within one poll the card shows the schedule.
        let lastFeed = try #require(scene.snapshots.last { ($0.header.timestamp ?? 0) <= Int(harness.clock.now.timeIntervalSince1970) })
        let staleAt = Date(timeIntervalSince1970: TimeInterval((lastFeed.header.timestamp ?? 0) + 65))
        while harness.clock.now < Self.berlin(8, 22) { try await scene.advance(by: 5, live: false) }
        // The server's evaluation turned to the schedule within one evaluation of going stale (its
        // timeline's revision, stamped with the evaluation's time: a loaded machine may deliver it
        // later on this test's moving clock, but not compute it later).
        let timeline = try harness.admin("GET", "/v1/contexts/trip:\(ride.id)/timeline?limit=500")
        let turned = (timeline.json?["entries"] as? [[String: Any]] ?? []).compactMap { entry -> Date? in
            guard entry["kind"] as? String == "revision", let note = entry["note"] as? String, note.hasPrefix("delay"), note.hasSuffix("→ 0 min"),
                let at = (entry["at"] as? String).flatMap(ISO8601DateFormatter().date(from:)), at >= staleAt
            else { return nil }
            return at
        }.min()
        let at = try #require(turned, "a revision to delay 0 after \(staleAt): \(timeline.text.prefix(600))")
        #expect(at.timeIntervalSince(staleAt) <= 15, "within one evaluation of going stale: \(at.timeIntervalSince(staleAt)) s")
        // And the phone shows it.
        #expect(await harness.until { scene.card(phone, ride.id).map { $0.delay == 0 && $0.occupancy == .unknown } ?? false })
        #expect(try await client.trip(ride.id).realtime == false)
    }

    @Test func theRiderEndsTheCardAndNothingIsPushedAfterTheEnd() async throws {
        let scene = try Scene()
        let harness = scene.harness
        let phone = await harness.phone("dennis-phone")
        let client = harness.client(deviceID: "dennis-phone")
        let ride = try await client.startTrip(
            StartTripRequest(tripId: DemoFeed.tripID, fromStopId: "mannheim-paradeplatz", toStopId: "heidelberg-bismarckplatz", start: "push"))
        while harness.clock.now < Self.berlin(8, 10) { try await scene.advance(by: 5) }
        #expect(scene.card(phone, ride.id)?.phase == .inProgress)
        // "Beenden": the app ends the ride; the card gets its end.
        let ended = try await client.endTrip(ride.id)
        #expect(ended.ended == true)
        try await scene.advance(by: 1)
        #expect(phone.activities.last { $0.contextKey == "trip:\(ride.id)" }?.endedAt != nil, "the card ended")
        let pushes = phone.tokens.flatMap { harness.sandbox.accepted(token: $0) }.count
        // The ride goes on without it: nothing more is pushed (drained, then looked).
        for _ in 0..<60 { try await scene.advance(by: 5) }
        #expect(phone.tokens.flatMap { harness.sandbox.accepted(token: $0) }.count == pushes)
        #expect(try await client.endAllTrips().ended.isEmpty, "nothing left to end")
    }

    /// A ride's card push-started later (`at`, issue "scheduled starts"): the server follows the
    /// ride from now, the card arrives at `at` and once; an `at` the card could not start at is a
    /// 422 naming `at`, and no ride is stored.
    @Test func aRidesCardPushStartedAtALaterTimeArrivesThenAndOnce() async throws {
        let scene = try Scene()
        let harness = scene.harness
        let phone = await harness.phone("jaqueline-phone")
        let client = harness.client(deviceID: "jaqueline-phone")
        func ride(at: Date?, start: String = "push") async throws -> TripResponse {
            try await client.startTrip(
                StartTripRequest(
                    tripId: DemoFeed.tripID, fromStopId: "mannheim-wasserturm", toStopId: "edingen-bahnhof", start: start,
                    at: at.map { $0.formatted(.iso8601) }))
        }
        func refusal(at: Date, start: String = "push") async -> String? {
            do {
                _ = try await ride(at: at, start: start)
                return nil
            } catch LivelineClientError.server(let status, _, _, let field) {
                return "\(status) \(field ?? "-")"
            } catch {
                return "\(error)"
            }
        }
        #expect(await refusal(at: Self.berlin(12, 0)) == "422 at", "after the ride arrives")
        #expect(await refusal(at: Self.berlin(8, 0), start: "local") == "422 at", "the app starts a local card itself")
        #expect(await refusal(at: Self.berlin(7, 0)) == "422 at", "in the past")
        #expect(try await client.endAllTrips().ended.isEmpty, "no ride was stored")

        let at = Self.berlin(8, 5)
        let started = try await ride(at: at)
        #expect(started.starts?.map(\.outcome) == ["queued"], "\(started.starts ?? [])")
        while harness.clock.now < at.addingTimeInterval(-5) { try await scene.advance(by: 5) }
        func starts() -> Int {
            phone.tokens.flatMap { harness.sandbox.accepted(token: $0) }.filter {
                let json = try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
                return (json?["aps"] as? [String: Any])?["event"] as? String == "start"
            }.count
        }
        #expect(scene.card(phone, started.id) == nil && starts() == 0, "not before \(at)")
        try await scene.advance(by: 5)
        #expect(await harness.until { scene.card(phone, started.id) != nil }, "at \(at): \(phone.messages())")
        for _ in 0..<12 { try await scene.advance(by: 5) }
        #expect(starts() == 1, "one start")
    }
}
