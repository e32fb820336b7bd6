import Foundation
import LivelineTestSupport
import Testing

@testable import LivelineTransit

/// Feeds someone else wrote: gtfs-kit's sample feeds (its source distribution on PyPI, fetched by
/// `scripts/test-venv.sh` into `.venv/fixtures/gtfs-kit`). The counts are Python's csv module's,
/// reading the same files in the same run.
@Suite struct PublishedFeedTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folder = root.appendingPathComponent(".venv/fixtures/gtfs-kit")

    /// Rows of `stops.txt`, `trips.txt` and `stop_times.txt` in `zip`, as Python's csv reads them.
    static func pythonCounts(_ zip: URL) throws -> [String: Int] {
        let script = """
            import csv, io, json, sys, zipfile
            archive = zipfile.ZipFile(sys.argv[1])
            counts = {}
            for name in ["stops.txt", "trips.txt", "stop_times.txt"]:
                with archive.open(name) as f:
                    counts[name] = sum(1 for _ in csv.reader(io.TextIOWrapper(f, encoding="utf-8-sig"))) - 1
            print(json.dumps(counts))
            """
        let run = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, zip.path], timeout: 60)
        guard run.termination == .exited(0), let counts = try JSONSerialization.jsonObject(with: run.output) as? [String: Int] else {
            throw GTFSError("python could not count \(zip.lastPathComponent): \(String(decoding: run.errors, as: UTF8.self))")
        }
        return counts
    }

    @Test(arguments: ["sample_gtfs.zip", "cairns_gtfs.zip", "nyc_subway_gtfs.zip"])
    func aPublishedFeedLoadsWithTheCountsOfItsFiles(_ name: String) throws {
        let archive = Self.folder.appendingPathComponent(name)
        try #require(FileManager.default.fileExists(atPath: archive.path), "run scripts/test-venv.sh first: \(archive.path) is missing")
        let expected = try Self.pythonCounts(archive)
        let (feed, report) = try GTFSReader.read(archive)
        #expect(!report.hasErrors, "\(name): \(report)")
        #expect(feed.stops.count == expected["stops.txt"], "\(name) stops")
        #expect(feed.trips.count == expected["trips.txt"], "\(name) trips")
        #expect(feed.stopTimeCount == expected["stop_times.txt"], "\(name) stop times")
        #expect(feed.timeZone != nil)
        // Every trip's times run forward, past midnight included.
        for times in feed.stopTimes.values {
            #expect(zip(times, times.dropFirst()).allSatisfy { $0.departure <= $1.arrival })
        }
    }
}
