import Foundation
import LivelineEngine
import LivelineStore
import LivelineTransitModel
import Synchronization

/// The feeds in memory, by feed id, read from the database once (the one loaded at start is
/// given, not read back): stop search, departures and the tracker's rides read from here.
public final class TransitTimetables: Sendable {
    let door: EngineDoor
    private let feeds = Mutex<[Int: GTFSFeed]>([:])

    public init(door: EngineDoor) { self.door = door }

    /// Keeps `feed` as feed `id` (it was just loaded).
    public func remember(_ feed: GTFSFeed, id: Int) { feeds.withLock { $0[id] = feed } }

    /// Feed `id`, read from the database the first time.
    public func feed(_ id: Int) throws -> GTFSFeed {
        if let feed = feeds.withLock({ $0[id] }) { return feed }
        let feed = try door.read { read in try Self.read(id, in: read.sql) }
        feeds.withLock { $0[id] = feed }
        return feed
    }

    /// The current feed and its id; nil when none was loaded.
    public func current() throws -> (id: Int, feed: GTFSFeed)? {
        guard let loaded = try TransitFeedStore(door: door).current() else { return nil }
        return (loaded.id, try feed(loaded.id))
    }

    static func read(_ id: Int, in sql: any SQLTransaction) throws -> GTFSFeed {
        let feedID = [SQLValue(id)]
        var feed = GTFSFeed()
        guard let zone = try sql.queryOne("SELECT timezone FROM transit_feeds WHERE id = $1", feedID)?.string("timezone") else {
            throw GTFSError("there is no feed \(id)")
        }
        feed.agencies = [GTFSAgency(id: nil, name: "", timezone: zone)]
        for row in try sql.query("SELECT stop_id, name, lat, lon, parent_station FROM transit_stops WHERE feed_id = $1", feedID) {
            let stop = GTFSStop(
                id: try row.string("stop_id"), name: try row.string("name"), latitude: try row.optionalDouble("lat"),
                longitude: try row.optionalDouble("lon"), parentStation: try row.optionalString("parent_station"))
            feed.stops[stop.id] = stop
        }
        for row in try sql.query("SELECT route_id, line, long_name, route_type FROM transit_routes WHERE feed_id = $1", feedID) {
            let route = GTFSRoute(
                id: try row.string("route_id"), agencyID: nil, shortName: try row.string("line"), longName: try row.optionalString("long_name"),
                type: try row.int("route_type"))
            feed.routes[route.id] = route
        }
        for row in try sql.query("SELECT trip_id, route_id, service_id, headsign, direction_id FROM transit_trips WHERE feed_id = $1", feedID) {
            let trip = GTFSTrip(
                id: try row.string("trip_id"), routeID: try row.string("route_id"), serviceID: try row.string("service_id"),
                headsign: try row.optionalString("headsign"), directionID: try row.optionalInt("direction_id"))
            feed.trips[trip.id] = trip
        }
        for row in try sql.query(
            "SELECT trip_id, stop_sequence, stop_id, arrival, departure, timepoint FROM transit_stop_times WHERE feed_id = $1 ORDER BY trip_id, stop_sequence",
            feedID)
        {
            let time = GTFSStopTime(
                tripID: try row.string("trip_id"), stopSequence: try row.int("stop_sequence"), stopID: try row.string("stop_id"),
                arrival: try row.int("arrival"), departure: try row.int("departure"), timepoint: try row.int("timepoint") == 1)
            feed.stopTimes[time.tripID, default: []].append(time)
        }
        for row in try sql.query("SELECT service_id, weekdays, start_date, end_date FROM transit_calendars WHERE feed_id = $1", feedID) {
            let calendar = GTFSCalendar(
                serviceID: try row.string("service_id"), weekdays: try row.string("weekdays").map { $0 == "1" },
                startDate: try row.string("start_date"), endDate: try row.string("end_date"))
            feed.calendars[calendar.serviceID] = calendar
        }
        for row in try sql.query("SELECT service_id, date, exception_type FROM transit_calendar_dates WHERE feed_id = $1", feedID) {
            let date = GTFSCalendarDate(
                serviceID: try row.string("service_id"), date: try row.string("date"), exceptionType: try row.int("exception_type"))
            feed.calendarDates[date.serviceID, default: []].append(date)
        }
        return feed
    }
}

extension GTFSFeed {
    /// Stops whose name contains `query` (case and accents aside), best first: names starting
    /// with it, then by name.
    public func stops(matching query: String, limit: Int = 20) -> [GTFSStop] {
        let wanted = TransitFeedStore.searchable(query.trimmingCharacters(in: .whitespaces))
        guard !wanted.isEmpty else { return [] }
        let found = stops.values.filter { TransitFeedStore.searchable($0.name).contains(wanted) }
        return Array(
            found.sorted { left, right in
                let leftStarts = TransitFeedStore.searchable(left.name).hasPrefix(wanted)
                let rightStarts = TransitFeedStore.searchable(right.name).hasPrefix(wanted)
                if leftStarts != rightStarts { return leftStarts }
                return (left.name, left.id) < (right.name, right.id)
            }.prefix(limit))
    }

    /// A trip's departure from a stop on a service day.
    public struct Departure: Sendable, Hashable {
        public var trip: GTFSTrip
        public var serviceDay: ServiceDay
        /// The index of the stop in the trip's stop times.
        public var index: Int
        public var scheduled: Date
    }

    /// The trips leaving `stopID` at or after `after` (and before `until`), in time order: the
    /// service days of `after` and the day before (trips past midnight), each trip whose service
    /// runs that day. The trip's last stop is no departure.
    public func departures(from stopID: String, after: Date, until: Date, limit: Int = 10) -> [Departure] {
        guard let zone = timeZone else { return [] }
        let today = ServiceDay.containing(after, in: zone)
        var found: [Departure] = []
        for day in [today.previous, today, today.next] {
            let reference = day.reference(in: zone)
            for (tripID, times) in stopTimes {
                guard let trip = trips[tripID], runs(trip.serviceID, on: day) else { continue }
                for (index, time) in times.enumerated() where time.stopID == stopID && index < times.count - 1 {
                    let at = reference.addingTimeInterval(TimeInterval(time.departure))
                    if at >= after && at < until { found.append(Departure(trip: trip, serviceDay: day, index: index, scheduled: at)) }
                }
            }
        }
        return Array(found.sorted { ($0.scheduled, $0.trip.id) < ($1.scheduled, $1.trip.id) }.prefix(limit))
    }
}
