import LivelineStore

/// The transit feature's tables, recorded under the name `transit`.
enum TransitMigrations {
    static let all = [feeds, trackedTrips]

    /// GTFS feeds as loaded: each load is a feed of its own (`transit_feeds`), its rows keyed by
    /// it, so a new feed is written beside the one in use and made current in the same
    /// transaction; a tracked trip keeps the feed it started on. Times are GTFS seconds since
    /// noon minus 12 h of the service day.
    static let feeds = Migration(
        version: 1, name: "transit: feeds, stops, routes, trips, stop times, calendars",
        sql: """
            CREATE TABLE transit_feeds (
                id {{primaryKey}},
                fingerprint TEXT NOT NULL,
                source TEXT NOT NULL,
                timezone TEXT NOT NULL,
                loaded_at BIGINT NOT NULL,
                current INTEGER NOT NULL CHECK (current IN (0, 1)),
                stops BIGINT NOT NULL,
                trips BIGINT NOT NULL,
                stop_times BIGINT NOT NULL
            );
            CREATE TABLE transit_stops (
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                stop_id TEXT NOT NULL,
                name TEXT NOT NULL,
                search_name TEXT NOT NULL,
                lat DOUBLE PRECISION,
                lon DOUBLE PRECISION,
                parent_station TEXT,
                PRIMARY KEY (feed_id, stop_id)
            );
            CREATE TABLE transit_routes (
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                route_id TEXT NOT NULL,
                line TEXT NOT NULL,
                long_name TEXT,
                route_type INTEGER NOT NULL,
                PRIMARY KEY (feed_id, route_id)
            );
            CREATE TABLE transit_trips (
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                trip_id TEXT NOT NULL,
                route_id TEXT NOT NULL,
                service_id TEXT NOT NULL,
                headsign TEXT,
                direction_id INTEGER,
                PRIMARY KEY (feed_id, trip_id)
            );
            CREATE TABLE transit_stop_times (
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                trip_id TEXT NOT NULL,
                stop_sequence BIGINT NOT NULL,
                stop_id TEXT NOT NULL,
                arrival BIGINT NOT NULL,
                departure BIGINT NOT NULL,
                timepoint INTEGER NOT NULL CHECK (timepoint IN (0, 1)),
                PRIMARY KEY (feed_id, trip_id, stop_sequence)
            );
            CREATE INDEX transit_stop_times_departures ON transit_stop_times (feed_id, stop_id, departure);
            CREATE TABLE transit_calendars (
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                service_id TEXT NOT NULL,
                weekdays TEXT NOT NULL,
                start_date TEXT NOT NULL,
                end_date TEXT NOT NULL,
                PRIMARY KEY (feed_id, service_id)
            );
            CREATE TABLE transit_calendar_dates (
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                service_id TEXT NOT NULL,
                date TEXT NOT NULL,
                exception_type INTEGER NOT NULL,
                PRIMARY KEY (feed_id, service_id, date)
            );
            """)

    /// The rides being followed: one card each (context `trip:{id}`), on the feed they started on
    /// (kept while a ride uses it), with the state last evaluated and when to look again.
    static let trackedTrips = Migration(
        version: 2, name: "transit: tracked trips",
        sql: """
            CREATE TABLE transit_tracked_trips (
                id TEXT PRIMARY KEY,
                household_id BIGINT NOT NULL REFERENCES households (id),
                user_id BIGINT NOT NULL REFERENCES users (id),
                feed_id BIGINT NOT NULL REFERENCES transit_feeds (id),
                trip_id TEXT NOT NULL,
                service_day TEXT NOT NULL,
                from_index INTEGER NOT NULL,
                to_index INTEGER NOT NULL,
                line TEXT NOT NULL,
                destination TEXT NOT NULL,
                state TEXT NOT NULL,
                realtime INTEGER NOT NULL CHECK (realtime IN (0, 1)),
                next_at BIGINT,
                created_at BIGINT NOT NULL,
                ended_at BIGINT
            );
            CREATE INDEX transit_tracked_trips_due ON transit_tracked_trips (next_at) WHERE ended_at IS NULL;
            CREATE INDEX transit_tracked_trips_user ON transit_tracked_trips (user_id, ended_at);
            """)
}
