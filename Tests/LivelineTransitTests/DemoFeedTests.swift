import Foundation
import Testing

@testable import LivelineTransit

/// The demo feed the server ships (`Sources/LivelineTransit/Demo/README.md`).
@Suite struct DemoFeedTests {
    @Test func theDemoFeedReadsWithoutAProblemAndHasItsTrackedTrip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (feed, report) = try GTFSReader.read(try DemoFeed.write(to: folder), today: DemoFeed.serviceDay)
        #expect(report.notices.isEmpty, "\(report)")
        #expect(feed.stops.count == 23 && feed.trips.count == 60 && feed.stopTimeCount == 1380)
        let trip = try #require(feed.stopTimes[DemoFeed.tripID])
        #expect(trip.first?.stopID == DemoFeed.fromStopID && trip.last?.stopID == DemoFeed.toStopID)
        #expect(trip.first.map { GTFSTime.text($0.departure) } == "08:02:00" && trip.last.map { GTFSTime.text($0.arrival) } == "08:50:00")
        let service = try #require(feed.trips[DemoFeed.tripID]?.serviceID)
        #expect(feed.runs(service, on: DemoFeed.serviceDay))
        // Trips past midnight and interpolated stops are part of it.
        #expect(feed.stopTimes.values.contains { $0.contains { $0.arrival >= 24 * 3600 } })
        #expect(feed.stopTimes.values.contains { $0.contains { !$0.timepoint } })
        #expect(DemoFeed.snapshots.count == 62)
    }
}
