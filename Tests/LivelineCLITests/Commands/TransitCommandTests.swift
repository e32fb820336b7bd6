import Foundation
import LivelineCLI
import LivelineModel
import LivelineTransit
import LivelineTransitModel
import Testing

/// `liveline transit check FEED`, run in-process with captured output.
struct TransitCommandTests {
    /// A feed folder: a tram line's three stops and one trip, `stopTimes` as given.
    static func feed(stopTimes: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-transit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = [
            "agency.txt": "agency_name,agency_url,agency_timezone\nrnv,https://rnv.example,Europe/Berlin\n",
            "stops.txt": "stop_id,stop_name\na,Paradeplatz\nb,Wasserturm\n",
            "routes.txt": "route_id,route_short_name,route_type\n5,5,0\n",
            "trips.txt": "route_id,service_id,trip_id\n5,daily,t1\n",
            "stop_times.txt": stopTimes,
            "calendar.txt":
                "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\ndaily,1,1,1,1,1,1,1,20260101,20261231\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func aGoodFeedPassesWithItsCounts() throws {
        let folder = try Self.feed(
            stopTimes: "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt1,08:00:00,08:00:00,a,1\nt1,08:02:00,08:02:00,b,2\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        #expect(output.run(["transit", "check", folder.path, "--today", "2026-06-18"]) == 0)
        #expect(output.standardOutput.contains("2 stops, 1 routes, 1 trips, 2 stop times; 0 errors, 0 warnings"), "\(output.standardOutput)")
    }

    @Test func errorsAreListedWithFileAndLineAndTheExitCodeIsOne() throws {
        let folder = try Self.feed(
            stopTimes: "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt1,08:00:00,08:00:00,a,1\nt1,07:00:00,07:00:00,zz,2\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        #expect(output.run(["transit", "check", folder.path, "--today", "2027-02-01"]) == 1)
        let text = output.standardOutput
        #expect(text.contains("ERROR foreign_key_violation ×1") && text.contains("stop_times.txt:3: stop_id 'zz' is not in stops.txt"), "\(text)")
        #expect(text.contains("ERROR stop_time_decreasing ×1") && text.contains("WARNING expired_calendar ×1"), "\(text)")
        #expect(text.contains("2 errors, 1 warning — serve refuses this feed"), "\(text)")
    }

    @Test func aFeedThatCannotBeReadIsAUsageErrorSayingWhy() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-\(UUID().uuidString).zip")
        try Data("PK not really".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = CapturedOutput()
        #expect(output.run(["transit", "check", file.path]) == 2)
        #expect(output.standardError.contains("is no readable zip archive"), "\(output.standardError)")
        #expect(output.run(["transit", "check"]) == 2)
        #expect(output.run(["transit", "check", file.path, "--today", "tomorrow"]) == 2)
    }

    @Test func replayPrintsAJSONLinePerEvaluationAndASummary() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-replay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let feed = try DemoFeed.write(to: folder.appendingPathComponent("feed"))
        let rt = folder.appendingPathComponent("rt")
        try FileManager.default.createDirectory(at: rt, withIntermediateDirectories: true)
        for (index, snapshot) in DemoFeed.snapshots.enumerated() {
            try Data(snapshot).write(to: rt.appendingPathComponent(String(format: "%03d.pb", index)))
        }
        let output = CapturedOutput()
        let code = output.run([
            "transit", "replay", "--gtfs", feed.path, "--rt", rt.path, "--trip", DemoFeed.tripID, "--from", "mannheim-paradeplatz", "--to",
            "heidelberg-hauptbahnhof",
        ])
        #expect(code == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let evaluations = objects.dropLast()
        let summary = try #require(objects.last)
        #expect(evaluations.count > 100)
        let pushed = evaluations.filter { !($0["push"] is NSNull) }
        #expect(summary["pushes"] as? Int == pushed.count && summary["priority10"] as? Int ?? 99 <= 15)
        #expect((pushed.last?["push"] as? [String: Any])?["event"] as? String == "end")
        // Each state is the card's content state as pushed: it decodes into the contract.
        for object in evaluations.prefix(5) {
            let state = try JSONSerialization.data(withJSONObject: try #require(object["state"]))
            let decoded = try JSONDecoder().decode(TripLiveActivityAttributes.ContentState.self, from: state)
            #expect(decoded.currentStop == "Paradeplatz")
        }
        #expect(summary["arrivedAt"] as? Int == (evaluations.last?["at"] as? Int))

        let bad = CapturedOutput()
        #expect(bad.run(["transit", "replay", "--gtfs", feed.path, "--rt", rt.path, "--trip", "nope", "--from", "a", "--to", "b"]) == 2)
        #expect(bad.standardError.contains("there is no trip nope"), "\(bad.standardError)")
        try Data("not a protobuf".utf8).write(to: rt.appendingPathComponent("999.pb"))
        let broken = CapturedOutput()
        #expect(broken.run(["transit", "replay", "--gtfs", feed.path, "--rt", rt.path, "--trip", DemoFeed.tripID, "--from", "a", "--to", "b"]) == 2)
        #expect(broken.standardError.contains("999.pb is not a GTFS-Realtime FeedMessage"), "\(broken.standardError)")
    }
}
