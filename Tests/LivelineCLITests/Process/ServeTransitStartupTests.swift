import Foundation
import LivelineStore
import LivelineTestSupport
import Testing

/// `liveline serve` and its GTFS feed (`LIVELINE_GTFS_PATH`): a feed with errors is refused with
/// the validator's report; without one, the demo feed is loaded.
@Suite struct ServeTransitStartupTests {
    @Test func aFeedWithErrorsIsRefusedWithItsReportAndNothingIsLoaded() throws {
        let folder = try TransitCommandTests.feed(
            stopTimes: "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt1,08:00:00,08:00:00,a,1\nt1,08:02:00,08:02:00,nowhere,2\n")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-transit-start-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: data)
        }
        let run = try ChildProcess.run(
            ServeProcess.executable.path, ["serve", "--port", "0", "--host", "127.0.0.1", "--data", data.path],
            environment: ServeProcess.baseEnvironment.merging(["LIVELINE_GTFS_PATH": folder.path]) { $1 }, timeout: 60)
        let errors = String(decoding: run.errors, as: UTF8.self)
        #expect(run.termination != .exited(0), "serve must not start: \(errors)")
        #expect(errors.contains("the feed has errors, so it is not loaded"), "\(errors)")
        #expect(
            errors.contains("ERROR foreign_key_violation ×1") && errors.contains("stop_times.txt:3: stop_id 'nowhere' is not in stops.txt"),
            "\(errors)")
        let feeds = try Store.openSQLite(folder: data).database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM transit_feeds")?.int("n") }
        #expect(feeds == 0, "nothing half loaded")
    }

    @Test func withoutAFeedTheDemoFeedIsLoaded() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-transit-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServeProcess(data: data)
        server.kill(SIGTERM)
        let row = try Store.openSQLite(folder: data).database.read {
            try $0.queryOne("SELECT source, stops, trips, stop_times FROM transit_feeds WHERE current = 1")
        }
        #expect(try row?.string("source") == "demo feed (rnv line 5)" && row?.int("stop_times") == 1380)
    }
}
