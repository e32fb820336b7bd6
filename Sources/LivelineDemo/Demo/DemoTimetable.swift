import Foundation
import LivelineTransit

/// One ride of the tram story: a trip of the demo feed on a service day, from a stop to a stop.
struct DemoRide: Sendable, Hashable {
    var tripID: String
    var day: ServiceDay
    var line: String
    var fromStopID: String
    var toStopID: String
    var fromName: String
    var toName: String
    /// When the tram leaves the boarding stop and reaches the last one, by the timetable.
    var departure: Date
    var arrival: Date
    /// When the trip leaves its first stop (the real-time replay is timed from it).
    var tripStart: Date
}

/// The demo feed's timetable as the tram story reads it (`Sources/LivelineTransit/Demo/README.md`):
/// which ride to take next, and whether a trip runs as the one whose real-time sequence was
/// recorded (same stops, same running times), so that sequence can be replayed for it.
struct DemoTimetable: Sendable {
    let feed: GTFSFeed
    let zone: TimeZone

    /// Stops a ride goes at most (about 20 minutes of the line's 48).
    static let rideStops = 9
    /// The least time between now and boarding: the card starts before the tram leaves.
    static let boardingLead: TimeInterval = 60

    /// The demo feed, read as the server reads it.
    static func load() throws -> DemoTimetable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-timetable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let feed = try GTFSReader.read(try DemoFeed.write(to: folder)).feed
        return DemoTimetable(feed: feed, zone: feed.timeZone ?? TimeZone(secondsFromGMT: 3600)!)
    }

    /// The ride that boards first at or after `after` + ``boardingLead``, within three days: a
    /// trip of either direction, boarded at the first stop it leaves after that (with at least
    /// three stops still to go), left ``rideStops`` stops later or at its end. Nil when the feed's
    /// calendar has no trip then.
    func nextRide(after: Date) -> DemoRide? {
        let earliest = after.addingTimeInterval(Self.boardingLead)
        let today = ServiceDay.containing(after, in: zone)
        var best: DemoRide?
        for day in [today.previous, today, today.next, today.next.next, today.next.next.next] {
            for (tripID, trip) in feed.trips where feed.runs(trip.serviceID, on: day) {
                guard let times = feed.stopTimes[tripID], times.count >= 4, let first = times.first else { continue }
                guard let from = times.indices.first(where: { $0 <= times.count - 4 && day.date(times[$0].departure, in: zone) >= earliest }) else {
                    continue
                }
                let departure = day.date(times[from].departure, in: zone)
                if let best, best.departure <= departure { continue }
                let to = min(from + Self.rideStops, times.count - 1)
                best = DemoRide(
                    tripID: tripID, day: day, line: feed.routes[trip.routeID]?.lineName ?? trip.routeID, fromStopID: times[from].stopID,
                    toStopID: times[to].stopID, fromName: feed.stops[times[from].stopID]?.name ?? times[from].stopID,
                    toName: feed.stops[times[to].stopID]?.name ?? times[to].stopID, departure: departure,
                    arrival: day.date(times[to].arrival, in: zone), tripStart: day.date(first.departure, in: zone))
            }
        }
        return best
    }

    /// Whether `tripID` calls at the stops of the recorded trip (`DemoFeed.tripID`) with its
    /// running times: then the recorded real-time sequence, moved in time, fits it.
    func runsLikeTheRecordedTrip(_ tripID: String) -> Bool {
        guard let recorded = feed.stopTimes[DemoFeed.tripID], let times = feed.stopTimes[tripID], recorded.count == times.count,
            let recordedStart = recorded.first?.departure, let start = times.first?.departure
        else { return false }
        return zip(recorded, times).allSatisfy { old, new in
            old.stopID == new.stopID && old.arrival - recordedStart == new.arrival - start && old.departure - recordedStart == new.departure - start
        }
    }

    /// When the recorded trip left its first stop (2026-06-18 08:02 in Berlin).
    var recordedTripStart: Date? {
        feed.stopTimes[DemoFeed.tripID]?.first.map { DemoFeed.serviceDay.date($0.departure, in: zone) }
    }
}
