import Foundation
import LivelineModel
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import LivelineTransit
import LivelineTransitModel
import Testing

/// The transit routes through HTTP (`docs/features/transit.md`) on the demo feed, the server on a
/// manual clock set to the demo day, real time read from a file the test rewrites snapshot by
/// snapshot.
@Suite struct TransitAPITests {
    /// 2026-06-18 `hour:minute:second` in Berlin (UTC+2).
    static func berlin(_ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        Date(timeIntervalSince1970: 1_781_733_600 + TimeInterval(hour * 3600 + minute * 60 + second))
    }

    final class Scene {
        let clock: ManualClock
        let realtime = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-rt-\(UUID().uuidString).pb")
        let setup: APISetup

        init(realtime withRealtime: Bool = true, at start: Date = TransitAPITests.berlin(7, 55)) throws {
            clock = ManualClock(start)
            let path = realtime.path
            setup = try APISetup(clock: clock) { configuration in
                if withRealtime { configuration.environment["LIVELINE_GTFS_RT_URL"] = path }
                configuration.minimumPushInterval = 0
            }
        }

        /// Writes the demo snapshot in effect at the clock's time (the latest not after it).
        func publishSnapshot() throws {
            let now = Int(clock.now.timeIntervalSince1970)
            let snapshot = try DemoFeed.snapshots.last { try RealtimeFeed.decode($0).header.timestamp ?? 0 <= now }
            try Data(snapshot ?? []).write(to: realtime)
        }

        func request(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPConnection.Response {
            try setup.server.request(method, path, token: setup.bearer, json: json)
        }

        deinit {
            setup.stop()
            try? FileManager.default.removeItem(at: realtime)
        }
    }

    @Test func stopSearchAndDeparturesWithRealTime() throws {
        let scene = try Scene()
        try scene.publishSnapshot()
        let stops = try scene.request("GET", "/api/transit/stops?query=parade")
        #expect(stops.status == 200, "\(stops.text)")
        #expect((stops.json?["stops"] as? [[String: Any]])?.first?["id"] as? String == "mannheim-paradeplatz")
        let accents = try scene.request("GET", "/api/transit/stops?query=durerstr")
        #expect((accents.json?["stops"] as? [[String: Any]])?.first?["name"] as? String == "Neuostheim Dürerstraße", "accents aside")
        #expect(try scene.request("GET", "/api/transit/stops").status == 400)

        let departures = try scene.request("GET", "/api/transit/departures?stop_id=mannheim-hauptbahnhof&after=2026-06-18T05:55:00Z")
        #expect(departures.status == 200, "\(departures.text)")
        let list = try #require(departures.json?["departures"] as? [[String: Any]])
        let tracked = try #require(list.first { $0["tripId"] as? String == DemoFeed.tripID }, "\(list)")
        #expect(tracked["line"] as? String == "5" && tracked["realtime"] as? Bool == true && tracked["serviceDate"] as? String == "2026-06-18")
        #expect(list.filter { $0["tripId"] as? String != DemoFeed.tripID }.allSatisfy { $0["realtime"] as? Bool == false })
        #expect(try scene.request("GET", "/api/transit/departures?stop_id=nowhere").status == 404)
        #expect(try scene.request("GET", "/api/transit/departures?stop_id=mannheim-paradeplatz&after=soon").status == 400)
    }

    @Test func aRideIsFollowedFromBeforeDepartureToArrivedAndEnds() async throws {
        let scene = try Scene()
        try scene.publishSnapshot()
        let body = #"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-nationaltheater"}"#
        let started = try scene.request("POST", "/api/trips", json: body)
        #expect(started.status == 201, "\(started.text)")
        let id = try #require(started.json?["id"] as? String)
        #expect(started.json?["contextKey"] as? String == "trip:\(id)" && started.json?["realtime"] as? Bool == true)
        #expect((started.json?["attributes"] as? [String: Any])?["destination"] as? String == "Nationaltheater")
        #expect((started.json?["state"] as? [String: Any])?["phase"] as? String == "beforeDeparture")
        let token = try scene.setup.device(1, contextKey: "trip:\(id)", type: TripLiveActivityAttributes.typeName)

        // The clock runs through the ride; the real-time feed follows it.
        var phases: [String] = []
        let end = Self.berlin(8, 16)
        while scene.clock.now < end {
            scene.clock.advance(by: 5)
            try scene.publishSnapshot()
            scene.setup.server.app.engine.sweepLifecycle()
            let truth = try scene.request("GET", "/api/trips/\(id)")
            if let phase = (truth.json?["state"] as? [String: Any])?["phase"] as? String, phases.last != phase { phases.append(phase) }
        }
        #expect(phases == ["beforeDeparture", "inProgress", "arrived"], "\(phases)")
        let final = try scene.request("GET", "/api/trips/\(id)")
        #expect(final.json?["ended"] as? Bool == true)
        let rev = try #require(final.json?["rev"] as? Int)
        #expect(try scene.request("GET", "/api/trips/\(id)?since_rev=\(rev)").json?["unchanged"] as? Bool == true)
        #expect(await eventually { scene.setup.aps(token).last?["event"] as? String == "end" }, "the card ends on the phone")
        let end30 = try #require(scene.setup.aps(token).last?["dismissal-date"] as? Int)
        // The arrival as the card has it (the API writes its dates in ISO 8601).
        let arrival = try #require((final.json?["state"] as? [String: Any])?["nextStopTime"] as? String)
        let arrivedAt = try #require(ISO8601DateFormatter().date(from: arrival))
        #expect(arrivedAt > Self.berlin(8, 10) && arrivedAt < Self.berlin(8, 16), "\(arrivedAt)")
        // 30 s after the arrival, whenever the end was sent.
        let after = TimeInterval(end30) - arrivedAt.timeIntervalSince1970
        #expect(abs(after - 30) <= 1, "dismissed \(after) s after the arrival")
        let priority10 = scene.setup.sandbox.accepted(token: token).filter { $0.priority == 10 }.count
        #expect(priority10 <= 15)
    }

    @Test func badRidesAreRefusedWithTheField() throws {
        let scene = try Scene(realtime: false)
        func start(_ json: String) throws -> TestHTTPConnection.Response { try scene.request("POST", "/api/trips", json: json) }
        let backwards = try start(#"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-wasserturm","to_stop_id":"mannheim-paradeplatz"}"#)
        #expect(backwards.status == 422 && (backwards.json?["error"] as? [String: Any])?["field"] as? String == "to_stop_id", "\(backwards.text)")
        let unknownTrip = try start(#"{"trip_id":"nope","from_stop_id":"mannheim-wasserturm","to_stop_id":"mannheim-paradeplatz"}"#)
        #expect(unknownTrip.status == 404)
        let unknownStop = try start(#"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"atlantis","to_stop_id":"mannheim-paradeplatz"}"#)
        #expect(unknownStop.status == 404 && unknownStop.text.contains("from_stop_id"))
        let far = try start(
            #"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-wasserturm","service_date":"2026-06-19"}"#
        )
        #expect(far.status == 422 && far.text.contains("8 hours"), "\(far.text)")
        let weekend = try start(
            #"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-wasserturm","service_date":"2026-06-20"}"#
        )
        #expect(weekend.status == 422 && weekend.text.contains("does not run"), "\(weekend.text)")
        let badStart = try start(
            #"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-wasserturm","start":"fax"}"#)
        #expect(badStart.status == 400 && (badStart.json?["error"] as? [String: Any])?["field"] as? String == "start")
        #expect(try start(#"{"trip_id":"\#(DemoFeed.tripID)"}"#).status == 400)

        // Without real time the card uses the schedule and says so.
        let plain = try start(#"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-wasserturm"}"#)
        #expect(plain.status == 201 && plain.json?["realtime"] as? Bool == false, "\(plain.text)")
        #expect((plain.json?["state"] as? [String: Any])?["occupancy"] as? String == "unknown")
        let id = try #require(plain.json?["id"] as? String)
        // Another household sees no such ride; ending it twice is fine; end-all ends the rest.
        let (_, other) = try scene.setup.server.addUser(household: "Other", name: "Someone")
        #expect(try scene.setup.server.request("GET", "/api/trips/\(id)", token: other).status == 404)
        // An id that cannot be a ride's is a 400 naming the field, not a lookup.
        for malformed in ["cs_abc", "tr_a.b", "tr_" + String(repeating: "a", count: 62)] {
            let refused = try scene.request("GET", "/api/trips/\(malformed)")
            #expect(refused.status == 400 && (refused.json?["error"] as? [String: Any])?["field"] as? String == "id", "\(malformed): \(refused.text)")
        }
        #expect(try scene.request("DELETE", "/api/trips/\(id)").json?["ended"] as? Bool == true)
        let second = try start(#"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-wasserturm"}"#)
        let secondID = try #require(second.json?["id"] as? String)
        let all = try scene.request("POST", "/api/trips/end-all")
        #expect((all.json?["ended"] as? [String]) == [secondID], "\(all.text)")
    }

    /// (The engine's own sweep runs the watcher too, on its thread: the test waits for the effect.)
    @Test func aChangedFeedIsLoadedWhileRidesKeepTheirsAndABrokenOneIsRefusedWhileTheServerGoesOn() async throws {
        let folder = try DemoFeed.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("liveline-feed-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock(Self.berlin(7, 55))
        let setup = try APISetup(clock: clock) { $0.environment["LIVELINE_GTFS_PATH"] = folder.path }
        defer { setup.stop() }
        let store = setup.server.app.store
        func current() throws -> Int? {
            try store.database.read { try $0.queryOne("SELECT id FROM transit_feeds WHERE current = 1")?.int("id") }
        }
        func metric(_ name: String) throws -> String? {
            try setup.admin("GET", "/metrics").text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map(String.init)
        }
        let first = try current()
        let ride = try setup.server.request(
            "POST", "/api/trips", token: setup.bearer,
            json: #"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"heidelberg-bismarckplatz"}"#)
        let rideID = try #require(ride.json?["id"] as? String, "\(ride.text)")

        // A broken change (stop_times.txt loses a column): refused, the server goes on with the feed it has.
        let stopTimes = folder.appendingPathComponent("stop_times.txt")
        let good = try String(contentsOf: stopTimes, encoding: .utf8)
        try good.replacingOccurrences(of: "departure_time,", with: "").write(to: stopTimes, atomically: true, encoding: .utf8)
        clock.advance(by: 61)
        setup.server.app.engine.sweepLifecycle()
        #expect(try await eventually { try metric("liveline_transit_feed_refusals_total") == "liveline_transit_feed_refusals_total 1" })
        #expect(try current() == first)
        let search = try setup.server.request("GET", "/api/transit/stops?query=Paradeplatz", token: setup.bearer)
        #expect((search.json?["stops"] as? [[String: Any]])?.count == 1, "still answering from the feed it has")

        // A good change: loaded; the ride started on the old feed keeps it.
        try good.write(to: stopTimes, atomically: true, encoding: .utf8)
        let stops = folder.appendingPathComponent("stops.txt")
        try (try String(contentsOf: stops, encoding: .utf8)).replacingOccurrences(of: ",Paradeplatz,", with: ",Paradeplatz (Mitte),")
            .write(to: stops, atomically: true, encoding: .utf8)
        clock.advance(by: 61)
        setup.server.app.engine.sweepLifecycle()
        #expect(try await eventually { try current() != first })
        let second = try current()
        #expect(second != nil && second != first)
        let renamed = try setup.server.request("GET", "/api/transit/stops?query=Mitte", token: setup.bearer)
        #expect((renamed.json?["stops"] as? [[String: Any]])?.first?["name"] as? String == "Paradeplatz (Mitte)")
        clock.advance(by: 15 * 60)
        setup.server.app.engine.sweepLifecycle()
        #expect(
            try await eventually {
                let state = try setup.server.request("GET", "/api/trips/\(rideID)", token: setup.bearer).json?["state"] as? [String: Any]
                return state?["phase"] as? String == "inProgress"
            })
        let later = try setup.server.request("GET", "/api/trips/\(rideID)", token: setup.bearer)
        #expect((later.json?["state"] as? [String: Any])?["phase"] as? String == "inProgress", "\(later.text)")
        #expect((later.json?["state"] as? [String: Any])?["currentStop"] as? String != nil)
        let oldRows = try store.database.read {
            try $0.queryOne("SELECT COUNT(*) AS n FROM transit_stop_times WHERE feed_id = $1", [.integer(Int64(first ?? 0))])?.int("n")
        }
        #expect(oldRows == 1380, "the ride's feed is kept while it rides")
    }

    @Test func aRealtimeFeedThatDoesNotDecodeKeepsTheLastGoodOneAndSaysSo() async throws {
        // 7 s after the 07:54:03 snapshot: it stays fresh (65 s) through the next evaluation.
        let scene = try Scene(at: Self.berlin(7, 54, 10))
        try scene.publishSnapshot()
        let started = try scene.request(
            "POST", "/api/trips", json: #"{"trip_id":"\#(DemoFeed.tripID)","from_stop_id":"mannheim-paradeplatz","to_stop_id":"mannheim-wasserturm"}"#
        )
        let id = try #require(started.json?["id"] as? String, "\(started.text)")
        #expect(started.json?["realtime"] as? Bool == true)
        // The file turns into something that is no FeedMessage.
        try Data("<html>502 Bad Gateway</html>".utf8).write(to: scene.realtime)
        scene.clock.advance(by: 31)  // the ride's next evaluation (30 s before departure)
        scene.setup.server.app.engine.sweepLifecycle()
        #expect(
            try await eventually {
                let metrics = try scene.setup.admin("GET", "/metrics").text
                return !metrics.contains("liveline_transit_realtime_failures_total 0") && metrics.contains("liveline_transit_realtime_failures_total")
            })
        let ride = try scene.request("GET", "/api/trips/\(id)")
        #expect(ride.json?["realtime"] as? Bool == true, "the last good feed (not yet stale) stays in use: \(ride.text)")
    }
}
