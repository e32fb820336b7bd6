import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore
import LivelineTransitModel

/// The transit routes (`docs/features/transit.md`, "Endpoints"), for a household member's bearer
/// token: stop search, departures with real time, and the rides — started (the card by the app,
/// or by push-to-start), read with the `since_rev` shortcut, ended.
struct TransitHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let tracker: TripTracker
    let clock: @Sendable () -> Date

    init(context: FeatureContext, tracker: TripTracker) {
        auth = context.auth
        engine = context.engine
        clock = context.clock
        self.tracker = tracker
    }

    /// Adds the transit routes in the order of the endpoints' table (docs/features/transit.md,
    /// "Endpoints").
    func addRoutes(to router: inout Router) {
        addTimetableRoutes(to: &router)
        addTripRoutes(to: &router)
    }

    /// Adds the routes that read the loaded timetable: stop search and a stop's departures with real
    /// time (docs/features/transit.md, "Endpoints").
    func addTimetableRoutes(to router: inout Router) {
        router.add(Routes.transitStops) { request in
            _ = try auth.caller(of: request)
            let query = (try TransitDocumentation.query.textQuery(of: request) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let feed = try currentFeed()
            return try .json(TransitStopsResponse(stops: feed.feed.stops(matching: query).map(Self.stop)))
        }
        router.add(Routes.transitDepartures) { request in
            _ = try auth.caller(of: request)
            let stopID = try TransitDocumentation.stopID.textQuery(of: request) ?? ""
            let after = try Self.after(request) ?? clock()
            let (_, feed) = try currentFeed()
            guard let stop = feed.stops[stopID] else { throw HTTPError.notFound("there is no stop \(stopID) in the timetable") }
            let departures = feed.departures(
                from: stopID, after: after.addingTimeInterval(-60 * 5), until: after.addingTimeInterval(3 * 3600), limit: 40)
            let now = clock()
            let live = tracker.realtime.feed(now: now).flatMap { $0.isStale(at: now) ? nil : $0 }
            let zone = feed.timeZone ?? TimeZone(secondsFromGMT: 0) ?? .current
            let shown = departures.compactMap { departure -> TransitDeparture? in
                let update = live?.tripUpdate(tripID: departure.trip.id, startDate: departure.serviceDay.gtfsDate)
                let times = feed.stopTimes[departure.trip.id] ?? []
                let prediction = RealtimePrediction.apply(update, to: times, serviceDay: departure.serviceDay.reference(in: zone))[departure.index]
                let expected = update == nil ? departure.scheduled : prediction.expectedDeparture
                guard expected >= after, !(update != nil && prediction.skipped) else { return nil }
                return TransitDeparture(
                    tripId: departure.trip.id, line: feed.routes[departure.trip.routeID]?.lineName ?? departure.trip.routeID,
                    headsign: departure.trip.headsign, serviceDate: departure.serviceDay.description, scheduled: departure.scheduled,
                    expected: expected, delay: update == nil ? nil : prediction.departureDelay ?? prediction.delay, realtime: update != nil)
            }
            return try .json(
                TransitDeparturesResponse(stop: Self.stop(stop), departures: Array(shown.sorted { $0.expected < $1.expected }.prefix(10))))
        }
    }

    /// A ride's `at`: only with `start: push` (else 422), within the engine's range for a
    /// scheduled start (else 422); before the ride arrives is the tracker's check.
    static func pushTime(_ text: String?, start: String, engine: Engine, now: Date) throws -> Date? {
        guard let at = try CommonFields.startTime(text) else { return nil }
        guard start == "push" else {
            throw HTTPError(status: 422, code: "outOfRange", message: "at schedules a push-to-start: it goes with start push", field: "at")
        }
        if let problem = engine.configuration.scheduledStartProblem(at: at, now: now) {
            throw HTTPError(status: 422, code: "outOfRange", message: problem, field: "at")
        }
        return at
    }

    /// Adds the routes of the caller's rides: starting one, reading it with the `since_rev` shortcut,
    /// ending it and ending them all (docs/features/transit.md, "Endpoints").
    func addTripRoutes(to router: inout Router) {
        router.add(Routes.startTrip) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(StartTripRequest.self)
            for (field, value) in [("trip_id", body.tripId), ("from_stop_id", body.fromStopId), ("to_stop_id", body.toStopId)] {
                try TransitDocumentation.timetableID.named(field).text(value)
            }
            let start = try TransitDocumentation.start.text(body.start ?? "local")
            let now = clock()
            let at = try Self.pushTime(body.at, start: start, engine: engine, now: now)
            var day: ServiceDay?
            if let text = body.serviceDate {
                // The rule's pattern is a real day, which ServiceDay reads.
                guard let parsed = ServiceDay(try TransitDocumentation.serviceDate.text(text)) else {
                    throw TransitDocumentation.serviceDate.refusal(text)
                }
                day = parsed
            }
            let trip = try Self.refusals {
                try tracker.start(
                    householdID: caller.householdID, userID: caller.userID, tripID: body.tripId, fromStopID: body.fromStopId, toStopID: body.toStopId,
                    serviceDay: day, pushAt: at, now: now)
            }
            var starts: [StartContextResponse.Start]?
            if start == "push" {
                let alert = LiveActivityAlert(title: .plain("\(trip.attributes.line) → \(trip.attributes.destination)"))
                let result = try engine.startActivities(
                    contextKey: trip.contextKey, userIDs: [caller.userID], deviceIDs: [], alert: alert, at: at.flatMap { $0 > now ? $0 : nil })
                starts = result.outcomes.map {
                    .init(outcome: $0.kind.rawValue, deviceId: $0.deviceID, userId: $0.userID?.rawValue, reason: $0.reason)
                }
            }
            return try .json(Self.response(trip, rev: 1, starts: starts), status: 201)
        }
        router.add(Routes.trip) { request in
            let caller = try auth.caller(of: request)
            let id = try TransitDocumentation.id.text(request.parameter("id"))
            let sinceRev = try CommonFields.sinceRev.integerQuery(of: request)
            guard let (trip, rev) = try tracker.read(id, householdID: caller.householdID) else {
                throw HTTPError.notFound("there is no ride \(id) in your household")
            }
            if sinceRev == rev { return try .json(TripResponse(id: id, rev: rev, unchanged: true)) }
            return try .json(Self.response(trip, rev: rev))
        }
        router.add(Routes.endTrip) { request in
            let caller = try auth.caller(of: request)
            let id = try TransitDocumentation.id.text(request.parameter("id"))
            guard let (trip, _) = try tracker.read(id, householdID: caller.householdID) else {
                throw HTTPError.notFound("there is no ride \(id) in your household")
            }
            guard trip.userID == caller.userID else { throw HTTPError.forbidden("ride \(id) is another member's") }
            _ = try tracker.end(id, now: clock())
            guard let (ended, rev) = try tracker.read(id, householdID: caller.householdID) else { throw HTTPError.notFound("the ride went away") }
            return try .json(Self.response(ended, rev: rev))
        }
        router.add(Routes.endAllTrips) { request in
            let caller = try auth.caller(of: request)
            var ended: [String] = []
            for id in try tracker.active(userID: caller.userID) where try tracker.end(id, now: clock(), note: "the rider ended all rides") {
                ended.append(id)
            }
            return try .json(EndTripsResponse(ended: ended))
        }
    }

    func currentFeed() throws -> (id: Int, feed: GTFSFeed) {
        guard let current = try tracker.timetables.current() else { throw HTTPError.unavailable("no timetable is loaded", retryAfter: 30) }
        return current
    }

    static func stop(_ stop: GTFSStop) -> TransitStop { TransitStop(id: stop.id, name: stop.name, lat: stop.latitude, lon: stop.longitude) }

    static func response(_ trip: TrackedTrip, rev: Int, starts: [StartContextResponse.Start]? = nil) -> TripResponse {
        TripResponse(
            id: trip.id, rev: rev, unchanged: false, contextKey: trip.contextKey, attributes: trip.attributes, timetableTripId: trip.tripID,
            state: trip.state,
            realtime: trip.realtime, serviceDate: trip.serviceDay.description, ended: trip.endedAt != nil,
            starts: starts)
    }

    /// `after`: POSIX seconds of 1 to 11 digits, or an RFC 3339 `date-time` (``RFC3339/dateTime``:
    /// any offset, fractional seconds, years 0001 to 9999, no leap second) — exactly the pattern.
    static let after = FieldRule(
        "after",
        .text(
            length: 1...64,
            format: TextFormat(
                pattern: "^([0-9]{1,11}|\(RFC3339.dateTime))$",
                about: "a time: RFC 3339 (2026-06-18T08:00:00Z, any offset, fractional seconds) or POSIX seconds (1 to 11 digits)")),
        about: "the earliest departure (default: now)")

    /// `after` of `request`; nil when not given.
    static func after(_ request: HTTPRequest) throws -> Date? {
        try after.textQuery(of: request).flatMap(time)
    }

    /// The moment a valid `after` names: POSIX seconds, or an RFC 3339 time.
    static func time(_ text: String) -> Date? {
        if let seconds = Int(text) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        return RFC3339.date(fromDateTime: text)
    }

    static func refusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let refusal as TripRefusal {
            switch refusal.kind {
            case .notFound: throw HTTPError.notFound(refusal.message)
            case .forbidden: throw HTTPError.forbidden(refusal.message)
            case .unprocessable(let field): throw HTTPError.contractViolation(refusal.message, field: field)
            }
        }
    }
}
