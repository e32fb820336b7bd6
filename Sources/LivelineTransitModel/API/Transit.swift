import Foundation
import LivelineModel

/// Transit trips (`docs/features/transit.md`): the bodies of the stop search, the departures and
/// the tracked rides, shared by the server and the app.

/// A stop of the timetable.
public struct TransitStop: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var lat: Double?
    public var lon: Double?

    public init(id: String, name: String, lat: Double?, lon: Double?) {
        self.id = id
        self.name = name
        self.lat = lat
        self.lon = lon
    }
}

/// `GET /api/transit/stops?query=`.
public struct TransitStopsResponse: Codable, Sendable, Hashable {
    public var stops: [TransitStop]
    public init(stops: [TransitStop]) { self.stops = stops }
}

/// One trip leaving a stop.
public struct TransitDeparture: Codable, Sendable, Hashable {
    public var tripId: String
    public var line: String
    public var headsign: String?
    /// The trip's service day, `YYYY-MM-DD` (a trip past midnight belongs to the day before).
    public var serviceDate: String
    public var scheduled: Date
    /// The real-time departure, else the scheduled one.
    public var expected: Date
    /// Seconds late (negative: early); nil without real time for the trip.
    public var delay: Int?
    public var realtime: Bool

    public init(
        tripId: String, line: String, headsign: String?, serviceDate: String, scheduled: Date, expected: Date, delay: Int?, realtime: Bool
    ) {
        self.tripId = tripId
        self.line = line
        self.headsign = headsign
        self.serviceDate = serviceDate
        self.scheduled = scheduled
        self.expected = expected
        self.delay = delay
        self.realtime = realtime
    }
}

/// `GET /api/transit/departures?stop_id=&after=`.
public struct TransitDeparturesResponse: Codable, Sendable, Hashable {
    public var stop: TransitStop
    public var departures: [TransitDeparture]
    public init(stop: TransitStop, departures: [TransitDeparture]) {
        self.stop = stop
        self.departures = departures
    }
}

/// Body of `POST /api/trips`.
public struct StartTripRequest: Codable, Sendable, Hashable {
    public var tripId: String
    public var fromStopId: String
    public var toStopId: String
    /// `YYYY-MM-DD`; the service day on which the trip leaves `from_stop_id` next when left out.
    public var serviceDate: String?
    /// `local` (the app starts the card itself; the default) or `push` (push-to-start on the
    /// caller's devices).
    public var start: String?
    /// With `push`: when the push-to-start goes out (RFC 3339), before the ride arrives; left
    /// out, at once.
    public var at: String?

    public init(tripId: String, fromStopId: String, toStopId: String, serviceDate: String? = nil, start: String? = nil, at: String? = nil) {
        self.at = at
        self.tripId = tripId
        self.fromStopId = fromStopId
        self.toStopId = toStopId
        self.serviceDate = serviceDate
        self.start = start
    }

    enum CodingKeys: String, CodingKey {
        case tripId = "trip_id"
        case fromStopId = "from_stop_id"
        case toStopId = "to_stop_id"
        case serviceDate = "service_date"
        case start, at
    }
}

/// A tracked ride: the answer of `POST /api/trips` and `GET /api/trips/{id}` (with `since_rev`
/// equal to the current revision only `id`, `rev` and `unchanged: true`).
public struct TripResponse: Codable, Sendable, Hashable {
    public var id: String
    public var rev: Int
    public var unchanged: Bool
    /// `trip:{id}`: the app registers its card's update token under it.
    public var contextKey: String?
    /// The card's attributes; their `tripId` is the ride's id (``id``), so an app whose card was
    /// started by push finds its context key, `trip:{tripId}`.
    public var attributes: TripLiveActivityAttributes?
    /// The timetable's trip.
    public var timetableTripId: String?
    /// The card's content state.
    public var state: TripLiveActivityAttributes.ContentState?
    /// False when the card uses the schedule (no feed, the trip missing from it, or a stale feed).
    public var realtime: Bool?
    public var serviceDate: String?
    public var ended: Bool?
    /// The push-to-start outcomes, on a start with `start: "push"`.
    public var starts: [StartContextResponse.Start]?

    public init(
        id: String, rev: Int, unchanged: Bool, contextKey: String? = nil, attributes: TripLiveActivityAttributes? = nil,
        timetableTripId: String? = nil,
        state: TripLiveActivityAttributes.ContentState? = nil, realtime: Bool? = nil, serviceDate: String? = nil, ended: Bool? = nil,
        starts: [StartContextResponse.Start]? = nil
    ) {
        self.id = id
        self.rev = rev
        self.unchanged = unchanged
        self.contextKey = contextKey
        self.attributes = attributes
        self.timetableTripId = timetableTripId
        self.state = state
        self.realtime = realtime
        self.serviceDate = serviceDate
        self.ended = ended
        self.starts = starts
    }
}

/// `POST /api/trips/end-all`.
public struct EndTripsResponse: Codable, Sendable, Hashable {
    /// The rides ended.
    public var ended: [String]
    public init(ended: [String]) { self.ended = ended }
}
