import Foundation
import LivelineEngine
import LivelineStore

/// A feed as it is in the database.
public struct LoadedFeed: Sendable, Hashable {
    public var id: Int
    /// What the feed's files hash to: the same files are not loaded twice.
    public var fingerprint: String
    public var source: String
    public var timeZone: String
    public var loadedAt: Date
    public var stops: Int
    public var trips: Int
    public var stopTimes: Int
}

/// The GTFS feeds in the database (`docs/features/transit.md`, "Data"): a feed is loaded beside
/// the current one and made current in the same transaction, so readers see the old feed or the
/// new one, never a mix, and a load that fails halfway leaves the old one as it was.
public struct TransitFeedStore: Sendable {
    let door: EngineDoor
    /// Rows per `INSERT`: fewer statements for a feed of a million stop times, under every
    /// backend's limit of parameters per statement.
    static let rowsPerInsert = 200

    public init(door: EngineDoor) { self.door = door }

    /// The current feed, if one was loaded.
    public func current() throws -> LoadedFeed? {
        try door.read { read in try current(in: read.sql) }
    }

    func current(in sql: any SQLTransaction) throws -> LoadedFeed? {
        try sql.queryOne(
            "SELECT id, fingerprint, source, timezone, loaded_at, stops, trips, stop_times FROM transit_feeds WHERE current = 1"
        ).map { row in
            LoadedFeed(
                id: try row.int("id"), fingerprint: try row.string("fingerprint"), source: try row.string("source"),
                timeZone: try row.string("timezone"), loadedAt: try row.date("loaded_at"), stops: try row.int("stops"),
                trips: try row.int("trips"), stopTimes: try row.int("stop_times"))
        }
    }

    /// The lock a load holds alone and a ride's start shares: instances load one after another,
    /// and no ride starts on a feed a load is deleting.
    static let lock = "transit.feeds"

    /// Makes `feed` the current one, in one transaction; a feed with the same `fingerprint` that
    /// is current already stays as it is (and is returned). Feeds no longer current are deleted,
    /// but for the rows of those rides still follow. Instances sharing a database load one after
    /// another (``lock``): the second finds the first's feed current.
    @discardableResult
    public func load(_ feed: GTFSFeed, fingerprint: String, source: String, now: Date) throws -> (feed: LoadedFeed, loaded: Bool) {
        guard let zone = feed.timeZone else { throw GTFSError("the feed names no agency time zone") }
        return try door.write(now: now) { change in
            let sql = change.sql
            try sql.holdLock(Self.lock, shared: false, patient: true)
            if let current = try current(in: sql), current.fingerprint == fingerprint { return (current, false) }
            guard
                let id = try sql.queryOne(
                    """
                    INSERT INTO transit_feeds (fingerprint, source, timezone, loaded_at, current, stops, trips, stop_times)
                    VALUES ($1, $2, $3, $4, 0, $5, $6, $7) RETURNING id
                    """,
                    [
                        .text(fingerprint), .text(source), .text(zone.identifier), SQLValue(now), SQLValue(feed.stops.count),
                        SQLValue(feed.trips.count), SQLValue(feed.stopTimeCount),
                    ]
                )?.int("id")
            else { throw StoreError(.database, "the new feed got no id") }
            let feedID = SQLValue(id)
            try insert(
                "transit_stops", ["feed_id", "stop_id", "name", "search_name", "lat", "lon", "parent_station"],
                feed.stops.values.sorted { $0.id < $1.id }.map { stop in
                    [
                        feedID, .text(stop.id), .text(stop.name), .text(Self.searchable(stop.name)), stop.latitude.map(SQLValue.real) ?? .null,
                        stop.longitude.map(SQLValue.real) ?? .null, SQLValue(stop.parentStation),
                    ]
                }, in: sql)
            try insert(
                "transit_routes", ["feed_id", "route_id", "line", "long_name", "route_type"],
                feed.routes.values.sorted { $0.id < $1.id }.map { route in
                    [feedID, .text(route.id), .text(route.lineName), SQLValue(route.longName), SQLValue(route.type)]
                }, in: sql)
            try insert(
                "transit_trips", ["feed_id", "trip_id", "route_id", "service_id", "headsign", "direction_id"],
                feed.trips.values.sorted { $0.id < $1.id }.map { trip in
                    [feedID, .text(trip.id), .text(trip.routeID), .text(trip.serviceID), SQLValue(trip.headsign), SQLValue(trip.directionID)]
                }, in: sql)
            try insert(
                "transit_stop_times", ["feed_id", "trip_id", "stop_sequence", "stop_id", "arrival", "departure", "timepoint"],
                feed.stopTimes.keys.sorted().flatMap { tripID in
                    (feed.stopTimes[tripID] ?? []).map { time in
                        [
                            feedID, .text(tripID), SQLValue(time.stopSequence), .text(time.stopID), SQLValue(time.arrival),
                            SQLValue(time.departure), SQLValue(time.timepoint),
                        ]
                    }
                }, in: sql)
            try insert(
                "transit_calendars", ["feed_id", "service_id", "weekdays", "start_date", "end_date"],
                feed.calendars.values.sorted { $0.serviceID < $1.serviceID }.map { calendar in
                    [
                        feedID, .text(calendar.serviceID), .text(calendar.weekdays.map { $0 ? "1" : "0" }.joined()), .text(calendar.startDate),
                        .text(calendar.endDate),
                    ]
                }, in: sql)
            try insert(
                "transit_calendar_dates", ["feed_id", "service_id", "date", "exception_type"],
                feed.calendarDates.keys.sorted().flatMap { service in
                    (feed.calendarDates[service] ?? []).map { [feedID, .text(service), .text($0.date), SQLValue($0.exceptionType)] }
                }, in: sql)
            try sql.execute("UPDATE transit_feeds SET current = CASE WHEN id = $1 THEN 1 ELSE 0 END", [feedID])
            try deleteFeeds(except: id, in: sql)
            guard let loaded = try current(in: sql) else { throw StoreError(.database, "the new feed is not current") }
            return (loaded, true)
        }
    }

    /// Whether feed `id` is (still) the current one: a feed no longer current may have lost its
    /// rows (its row stays while ended rides name it).
    static func isCurrent(_ id: Int, in sql: any SQLTransaction) throws -> Bool {
        try sql.queryOne("SELECT id FROM transit_feeds WHERE id = $1 AND current = 1", [SQLValue(id)]) != nil
    }

    /// Deletes every feed but `keep` and those rides still follow (they keep working on the
    /// timetable they started on).
    private func deleteFeeds(except keep: Int, in sql: any SQLTransaction) throws {
        let unused = "feed_id <> $1 AND feed_id NOT IN (SELECT feed_id FROM transit_tracked_trips WHERE ended_at IS NULL)"
        for table in ["transit_stop_times", "transit_trips", "transit_routes", "transit_stops", "transit_calendars", "transit_calendar_dates"] {
            try sql.execute("DELETE FROM \(table) WHERE \(unused)", [SQLValue(keep)])
        }
        try sql.execute(
            """
            DELETE FROM transit_feeds WHERE id <> $1 AND id NOT IN (SELECT feed_id FROM transit_tracked_trips)
            """, [SQLValue(keep)])
    }

    /// Inserts `rows` into `table`, ``rowsPerInsert`` at a time.
    private func insert(_ table: String, _ columns: [String], _ rows: [[SQLValue]], in sql: any SQLTransaction) throws {
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + Self.rowsPerInsert, rows.count)]
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(chunk.count * columns.count)
            let tuples = chunk.map { row -> String in
                let first = parameters.count
                parameters += row
                return "(" + (1...columns.count).map { "$\(first + $0)" }.joined(separator: ", ") + ")"
            }
            try sql.execute("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))", parameters)
            start += chunk.count
        }
    }

    /// A stop name as searched: lowercased, accents folded.
    static func searchable(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }
}
