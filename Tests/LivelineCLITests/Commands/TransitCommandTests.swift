import Foundation
import LivelineCLI
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
}
