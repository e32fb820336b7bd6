import Foundation

/// A GTFS static feed as read (https://gtfs.org/schedule/reference/): the rows Liveline uses, by
/// their ids. Times of day are seconds since "noon minus 12 h" of the service day (``GTFSTime``),
/// which may pass 24 h.
public struct GTFSFeed: Sendable {
    public var agencies: [GTFSAgency] = []
    public var stops: [String: GTFSStop] = [:]
    public var routes: [String: GTFSRoute] = [:]
    public var trips: [String: GTFSTrip] = [:]
    /// Each trip's stop times in `stop_sequence` order, blank times between timepoints interpolated.
    public var stopTimes: [String: [GTFSStopTime]] = [:]
    /// `calendar.txt` by `service_id`.
    public var calendars: [String: GTFSCalendar] = [:]
    /// `calendar_dates.txt`: exceptions by `service_id`.
    public var calendarDates: [String: [GTFSCalendarDate]] = [:]

    public init() {}

    /// The agency's time zone (the first agency's; GTFS requires every agency to share it).
    public var timeZone: TimeZone? { agencies.first.flatMap { TimeZone(identifier: $0.timezone) } }

    public var stopTimeCount: Int { stopTimes.values.reduce(0) { $0 + $1.count } }
}

public struct GTFSAgency: Sendable, Hashable {
    public var id: String?
    public var name: String
    /// An IANA time zone name, e.g. `Europe/Berlin`.
    public var timezone: String
}

public struct GTFSStop: Sendable, Hashable {
    public var id: String
    public var name: String
    public var latitude: Double?
    public var longitude: Double?
    public var parentStation: String?
}

public struct GTFSRoute: Sendable, Hashable {
    public var id: String
    public var agencyID: String?
    public var shortName: String?
    public var longName: String?
    public var type: Int

    /// The line as riders know it: the short name, else the long name, else the id.
    public var lineName: String { shortName.flatMap { $0.isEmpty ? nil : $0 } ?? longName.flatMap { $0.isEmpty ? nil : $0 } ?? id }
}

public struct GTFSTrip: Sendable, Hashable {
    public var id: String
    public var routeID: String
    public var serviceID: String
    public var headsign: String?
    public var directionID: Int?
}

public struct GTFSStopTime: Sendable, Hashable {
    public var tripID: String
    public var stopSequence: Int
    public var stopID: String
    /// Seconds since noon minus 12 h of the service day.
    public var arrival: Int
    public var departure: Int
    /// False when the time was blank in the feed and interpolated.
    public var timepoint: Bool
    public var shapeDistanceTraveled: Double?

    public init(
        tripID: String, stopSequence: Int, stopID: String, arrival: Int, departure: Int, timepoint: Bool = true,
        shapeDistanceTraveled: Double? = nil
    ) {
        self.tripID = tripID
        self.stopSequence = stopSequence
        self.stopID = stopID
        self.arrival = arrival
        self.departure = departure
        self.timepoint = timepoint
        self.shapeDistanceTraveled = shapeDistanceTraveled
    }
}

public struct GTFSCalendar: Sendable, Hashable {
    public var serviceID: String
    /// Monday first.
    public var weekdays: [Bool]
    /// `YYYYMMDD`.
    public var startDate: String
    public var endDate: String
}

public struct GTFSCalendarDate: Sendable, Hashable {
    public var serviceID: String
    /// `YYYYMMDD`.
    public var date: String
    /// 1: service added on that date; 2: removed.
    public var exceptionType: Int
}
