import Foundation
import LivelineModel
import Testing

@testable import LivelineTransit

/// GTFS-Realtime someone else wrote: gtfs-rt-kit's fixtures (its PyPI source distribution,
/// fetched by `scripts/test-venv.sh` into `.venv/fixtures/gtfs-rt-kit`), made by its
/// `make_fixtures.py` with Google's protobuf bindings, and their static feed (a BOM, stop times
/// out of order, a blank intermediate time, 24:10:00, a blank departure). The expected values are
/// the ones that script writes.
@Suite struct PublishedRealtimeTests {
    static let folder = PublishedFeedTests.root.appendingPathComponent(".venv/fixtures/gtfs-rt-kit")

    static func bytes(_ name: String) throws -> [UInt8] {
        let path = folder.appendingPathComponent(name)
        try #require(FileManager.default.fileExists(atPath: path.path), "run scripts/test-venv.sh first: \(path.path) is missing")
        return Array(try Data(contentsOf: path))
    }

    /// 2026-10-12 `hour:minute:second` in Warsaw (UTC+2 that day), as make_fixtures.py's `ts`.
    static func warsaw(_ hour: Int, _ minute: Int, _ second: Int = 0, dayOffset: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 2 * 3600) ?? .current
        let date = calendar.date(from: DateComponents(year: 2026, month: 10, day: 12 + dayOffset, hour: hour, minute: minute, second: second))
        return date ?? Date(timeIntervalSince1970: 0)
    }

    @Test func theirTripUpdatesDecodeAndApplyToTheirTimetable() throws {
        let (feed, report) = try GTFSReader.read(Self.folder.appendingPathComponent("static_gtfs"))
        #expect(!report.hasErrors, "\(report)")
        let zone = try #require(feed.timeZone)
        #expect(zone.identifier == "Europe/Warsaw")
        let day = try #require(ServiceDay(gtfsDate: "20261012")).reference(in: zone)
        let realtime = try RealtimeFeed.decode(try Self.bytes("trip_updates.pb"))
        #expect(realtime.header.timestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) } == Self.warsaw(8, 6))

        // T15-1: stop 1 departs 60 s late; stop 2's arrival is given as a time (08:07:30); stop 3
        // has a delay of 120 s and a time (08:12), and the time wins.
        let t15 = RealtimePrediction.apply(
            realtime.tripUpdate(tripID: "T15-1", startDate: "20261012"), to: try #require(feed.stopTimes["T15-1"]), serviceDay: day)
        #expect(t15.map(\.stopID) == ["S1", "S2", "S3"], "their rows are out of order; the reader sorts them")
        #expect(t15[0].departureDelay == 60)
        #expect(t15[1].arrival == Self.warsaw(8, 7, 30) && t15[1].arrivalDelay == 150)
        #expect(t15[2].arrival == Self.warsaw(8, 12) && t15[2].arrivalDelay == 120)

        // T175-1: a trip-level delay of 300 s and no stop time updates: every stop, the
        // interpolated one too.
        let t175 = RealtimePrediction.apply(realtime.tripUpdate(tripID: "T175-1"), to: try #require(feed.stopTimes["T175-1"]), serviceDay: day)
        #expect(t175.map(\.delay) == [300, 300, 300])
        #expect(t175[1].scheduledArrival == Self.warsaw(8, 15), "S3 interpolated halfway between 08:00 and 08:30")

        // T15-NIGHT (updates out of order): stop 1 leaves at 00:12 the next day — 24:10:00 of the
        // service day plus 120 s; stop 2 is skipped.
        let night = RealtimePrediction.apply(
            realtime.tripUpdate(tripID: "T15-NIGHT", startDate: "20261012"), to: try #require(feed.stopTimes["T15-NIGHT"]), serviceDay: day)
        #expect(night[0].scheduledDeparture == Self.warsaw(0, 10, dayOffset: 1))
        #expect(night[0].departure == Self.warsaw(0, 12, dayOffset: 1) && night[0].departureDelay == 120)
        #expect(night[1].skipped)
        #expect(realtime.tripUpdate(tripID: "UNKNOWN") != nil && feed.stopTimes["UNKNOWN"] == nil, "a trip the timetable does not know")
    }

    @Test func theirVehiclePositionsGiveTheOccupancy() throws {
        let realtime = try RealtimeFeed.decode(try Self.bytes("vehicle_positions.pb"))
        #expect(realtime.vehiclePosition(tripID: "T15-1", startDate: "20261012")?.occupancy == .low, "MANY_SEATS_AVAILABLE")
        #expect(realtime.vehiclePosition(tripID: "T175-1")?.occupancy == .unknown, "no occupancy given")
        #expect(realtime.vehiclePositions.count == 4, "the deleted entity is left out")
        // Their alerts decode too (Liveline skips them as unknown fields).
        let alerts = try RealtimeFeed.decode(try Self.bytes("alerts.pb"))
        #expect(alerts.tripUpdates.isEmpty && alerts.vehiclePositions.isEmpty && alerts.header.version == "2.0")
    }
}
