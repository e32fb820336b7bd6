import Foundation
import LivelineAPI
import LivelineEngine
import LivelineLog
import LivelineModel
import LivelineStore
import LivelineTransitModel
import Synchronization

/// Why a ride was refused; the handlers answer each with its status.
public struct TripRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case notFound
        case unprocessable(field: String)
        case forbidden
    }
    public var kind: Kind
    public var message: String
    public var description: String { message }
}

/// A tracked ride as stored.
public struct TrackedTrip: Sendable, Hashable {
    public var id: String
    public var householdID: HouseholdID
    public var userID: UserID
    public var feedID: Int
    public var tripID: String
    public var serviceDay: ServiceDay
    public var fromIndex: Int
    public var toIndex: Int
    public var attributes: TripLiveActivityAttributes
    public var state: TripLiveActivityAttributes.ContentState
    public var realtime: Bool
    public var nextAt: Date?
    public var endedAt: Date?

    public var contextKey: String { "trip:\(id)" }

    static let columns = """
        id, household_id, user_id, feed_id, trip_id, service_day, from_index, to_index, line, destination, state, realtime, next_at, ended_at
        """

    init(row: Row) throws {
        id = try row.string("id")
        householdID = HouseholdID(try row.int("household_id"))
        userID = UserID(try row.int("user_id"))
        feedID = try row.int("feed_id")
        tripID = try row.string("trip_id")
        guard let day = ServiceDay(try row.string("service_day")) else { throw StoreError(.column, "transit_tracked_trips.service_day is no day") }
        serviceDay = day
        fromIndex = try row.int("from_index")
        toIndex = try row.int("to_index")
        // The card's tripId is the ride's id: an app whose card was started by push finds the
        // card's context key from its attributes (`trip:{tripId}`).
        attributes = TripLiveActivityAttributes(tripId: id, line: try row.string("line"), destination: try row.string("destination"))
        state = try JSONDecoder().decode(TripLiveActivityAttributes.ContentState.self, from: Data(try row.string("state").utf8))
        realtime = try row.int("realtime") == 1
        nextAt = try row.optionalDate("next_at")
        endedAt = try row.optionalDate("ended_at")
    }
}

/// Follows the rides (`docs/features/transit.md`, "The tracker"): one evaluation loop for all of
/// them, driven by a schedule ordered by each ride's next evaluation (a heap), so its cost grows
/// with the rides due, not with the rides tracked. An evaluation that changes what the card shows
/// records the change (or, on arrival, the end) through the engine's door; the card's content
/// state is the one stored by the evaluation.
public final class TripTracker: Sendable {
    let door: EngineDoor
    let timetables: TransitTimetables
    let realtime: RealtimeSource
    let logger: Logger
    private let schedule = Mutex(Schedule())
    /// Held for a whole tick (``evaluateDue(now:)``).
    private let ticking = Mutex(())
    /// An activity lives at most 8 hours, and the engine ends a card its deadline margin (10
    /// minutes) before that: a ride arriving later than 7 h 45 min from now is refused.
    static let longestRide: TimeInterval = 7 * 3600 + 45 * 60

    public init(door: EngineDoor, timetables: TransitTimetables, realtime: RealtimeSource, logger: Logger) {
        self.door = door
        self.timetables = timetables
        self.realtime = realtime
        self.logger = logger
    }

    // MARK: Starting

    /// Starts following `tripID` from `fromStopID` to `toStopID` for `userID` on `serviceDay` (the
    /// day on which the trip leaves the stop next when nil): the ride's first state, its card's
    /// context (`trip:{id}`) at revision 1. `pushAt`, when its card is push-started later, must
    /// lie before the ride arrives.
    public func start(
        householdID: HouseholdID, userID: UserID, tripID: String, fromStopID: String, toStopID: String, serviceDay requested: ServiceDay?,
        pushAt: Date? = nil, now: Date
    ) throws -> TrackedTrip {
        let start = {
            try self.startOnCurrentFeed(
                householdID: householdID, userID: userID, tripID: tripID, fromStopID: fromStopID, toStopID: toStopID,
                serviceDay: requested, pushAt: pushAt, now: now)
        }
        do {
            return try start()
        } catch is FeedReplaced {
            // A load (of this instance or another) replaced the feed read: once more, on the new one.
            do {
                return try start()
            } catch is FeedReplaced {
                throw StoreError(.busy, "the timetable changed while the ride started")
            }
        }
    }

    /// A load replaced the feed a start read before the ride was written.
    private struct FeedReplaced: Error {}

    private func startOnCurrentFeed(
        householdID: HouseholdID, userID: UserID, tripID: String, fromStopID: String, toStopID: String, serviceDay requested: ServiceDay?,
        pushAt: Date?, now: Date
    ) throws -> TrackedTrip {
        guard let (feedID, feed) = try timetables.current(), let zone = feed.timeZone else {
            throw TripRefusal(kind: .notFound, message: "no timetable is loaded")
        }
        guard let trip = feed.trips[tripID], let times = feed.stopTimes[tripID] else {
            throw TripRefusal(kind: .notFound, message: "there is no trip \(tripID) in the timetable")
        }
        for (field, stop) in [("from_stop_id", fromStopID), ("to_stop_id", toStopID)] where feed.stops[stop] == nil {
            throw TripRefusal(kind: .notFound, message: "\(field): there is no stop \(stop) in the timetable")
        }
        guard let from = times.firstIndex(where: { $0.stopID == fromStopID }),
            let to = times[(from + 1)...].firstIndex(where: { $0.stopID == toStopID })
        else {
            throw TripRefusal(
                kind: .unprocessable(field: "to_stop_id"), message: "trip \(tripID) does not call at \(fromStopID) and after it at \(toStopID)")
        }
        let day: ServiceDay
        if let requested {
            guard feed.runs(trip.serviceID, on: requested) else {
                throw TripRefusal(kind: .unprocessable(field: "service_date"), message: "trip \(tripID) does not run on \(requested)")
            }
            day = requested
        } else {
            // The day it leaves the boarding stop next: yesterday's trip past midnight, today's, or tomorrow's.
            let today = ServiceDay.containing(now, in: zone)
            let candidates = [today.previous, today, today.next].filter { feed.runs(trip.serviceID, on: $0) }
            guard let next = candidates.first(where: { $0.date(times[from].departure, in: zone) >= now.addingTimeInterval(-60) }) else {
                throw TripRefusal(kind: .unprocessable(field: "service_date"), message: "trip \(tripID) does not leave \(fromStopID) again soon")
            }
            day = next
        }
        let arrives = day.date(times[to].arrival, in: zone)
        guard arrives.timeIntervalSince(now) <= Self.longestRide else {
            throw TripRefusal(
                kind: .unprocessable(field: "service_date"),
                message:
                    "the ride arrives more than 8 hours from now (\(Int(arrives.timeIntervalSince(now) / 60)) min): a Live Activity lives at most 8 hours"
            )
        }
        guard arrives > now else { throw TripRefusal(kind: .unprocessable(field: "service_date"), message: "this ride arrived already") }
        if let pushAt, pushAt >= arrives {
            throw TripRefusal(
                kind: .unprocessable(field: "at"),
                message: "at lies after the ride arrives (\(arrives.formatted(.iso8601))): its card would start once the ride is over")
        }
        let id = PublicID.make(prefix: Self.idPrefix)
        let attributes = TripLiveActivityAttributes(
            tripId: id, line: feed.routes[trip.routeID]?.lineName ?? trip.routeID, destination: feed.stops[toStopID]?.name ?? toStopID)
        let evaluation = TripEvaluation.evaluate(
            feed: feed, times: times, tripID: tripID, day: day, from: from, to: to, live: realtime.feed(now: now), now: now)
        let state = String(decoding: try JSONEncoder().encode(evaluation.state), as: UTF8.self)
        let tracked = try door.write(now: now) { change in
            // Shared with other starts, not with a load: the feed stays until this ride is written.
            try change.sql.holdLock(TransitFeedStore.lock, shared: true, patient: false)
            guard try TransitFeedStore.isCurrent(feedID, in: change.sql) else { throw FeedReplaced() }
            try change.sql.execute(
                """
                INSERT INTO transit_tracked_trips
                    (id, household_id, user_id, feed_id, trip_id, service_day, from_index, to_index, line, destination, state, realtime,
                     next_at, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                """,
                [
                    .text(id), SQLValue(householdID), SQLValue(userID), SQLValue(feedID), .text(tripID), .text(day.description), SQLValue(from),
                    SQLValue(to), .text(attributes.line), .text(attributes.destination), .text(state), SQLValue(evaluation.realtime),
                    SQLValue(evaluation.next), SQLValue(now),
                ])
            try change.createContext(
                key: "trip:\(id)", activityType: TripLiveActivityAttributes.typeName, householdID: householdID,
                attributes: String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self))
            try change.recordChange("trip:\(id)", note: "ride started: \(attributes.line) to \(attributes.destination)")
            return try read(id, in: change.sql)
        }
        guard let tracked else { throw StoreError(.database, "the new ride is not there") }
        if let next = evaluation.next { schedule.withLock { $0.push(next, id) } }
        return tracked
    }

    /// A ride's id starts with this.
    public static let idPrefix = "tr_"

    // MARK: Evaluating

    /// Evaluates every ride that is due at `now` (the engine's sweep calls it every second). One
    /// tick at a time: a ride is out of the schedule while its tick evaluates it, so a second tick
    /// running meanwhile (the dispatcher's sweep beside `Engine.sweepLifecycle()`) would find it
    /// not due and skip it, and with a clock that moved on since the first tick's `now`, the
    /// ride's next evaluation would come one cadence (or more) late. A tick waits for the one in
    /// progress instead, then takes every ride due at its `now`.
    public func evaluateDue(now: Date) {
        ticking.withLock { _ in tick(now: now) }
    }

    private func tick(now: Date) {
        loadSchedule(now: now)
        let due = schedule.withLock { $0.popDue(now) }
        guard !due.isEmpty else { return }
        // Fetched once for the tick, before any transaction.
        let live = realtime.feed(now: now)
        for id in due {
            do {
                if let next = try evaluate(id, live: live, now: now) { schedule.withLock { $0.push(next, id) } }
            } catch {
                logger.error("transit.evaluationFailed", [("trip", .string(id)), ("message", .string("\(error) (tried again in 15 s)"))])
                schedule.withLock { $0.push(now.addingTimeInterval(15), id) }
            }
        }
    }

    /// One ride's evaluation, in one transaction holding its card: what changed is recorded; on
    /// arrival the card ends. Returns when to look again (nil: done). A ride another instance
    /// evaluated meanwhile is left as it is.
    func evaluate(_ id: String, live: RealtimeFeed?, now: Date) throws -> Date? {
        try door.write(now: now) { change in
            _ = try change.lockContext("trip:\(id)")
            guard let tracked = try read(id, in: change.sql), tracked.endedAt == nil, let nextAt = tracked.nextAt else { return nil }
            guard nextAt <= now else { return nextAt }
            let feed = try timetables.feed(tracked.feedID)
            guard let times = feed.stopTimes[tracked.tripID] else { throw GTFSError("trip \(tracked.tripID) is gone from feed \(tracked.feedID)") }
            let evaluation = TripEvaluation.evaluate(
                feed: feed, times: times, tripID: tracked.tripID, day: tracked.serviceDay, from: tracked.fromIndex, to: tracked.toIndex, live: live,
                now: now)
            let arrived = evaluation.state.phase == .arrived
            if let why = TripEvaluation.pushReason(from: tracked.state, to: evaluation.state) {
                let state = String(decoding: try JSONEncoder().encode(evaluation.state), as: UTF8.self)
                try change.sql.execute(
                    "UPDATE transit_tracked_trips SET state = $2, realtime = $3 WHERE id = $1",
                    [.text(id), .text(state), SQLValue(evaluation.realtime)])
                if arrived {
                    // Ended at the arrival (seen within one evaluation of it): dismissed 30 s after it.
                    try change.end(tracked.contextKey, note: "arrived at \(tracked.attributes.destination)", at: evaluation.state.nextStopTime)
                } else {
                    try change.recordChange(tracked.contextKey, note: why)
                }
            }
            // Whether the times are real time is the API's truth at every evaluation, pushed or not.
            try change.sql.execute(
                "UPDATE transit_tracked_trips SET next_at = $2, ended_at = $3, realtime = $4 WHERE id = $1",
                [.text(id), SQLValue(evaluation.next), arrived ? SQLValue(now) : .null, SQLValue(evaluation.realtime)])
            return evaluation.next
        }
    }

    /// Every ride into the schedule at the first tick; then, every ``rereadInterval``, the rides
    /// due soon from the database (by its index on `next_at`): rides another instance started, or
    /// one that went away, are followed here too (the transaction's lock keeps two instances from
    /// evaluating one ride at once).
    private func loadSchedule(now: Date) {
        let (first, due) = schedule.withLock { schedule -> (Bool, Bool) in
            let due = schedule.readAt.map { now.timeIntervalSince($0) >= Self.rereadInterval } ?? true
            if due { schedule.readAt = now }
            return (!schedule.loaded, due)
        }
        guard due else { return }
        do {
            let rows = try door.read { read in
                try read.sql.query(
                    first
                        ? "SELECT id, next_at FROM transit_tracked_trips WHERE ended_at IS NULL AND next_at IS NOT NULL"
                        : "SELECT id, next_at FROM transit_tracked_trips WHERE ended_at IS NULL AND next_at <= $1",
                    first ? [] : [SQLValue(now.addingTimeInterval(Self.rereadInterval))]
                ).map { (try $0.string("id"), try $0.date("next_at")) }
            }
            schedule.withLock { schedule in
                schedule.loaded = true
                for (id, next) in rows { schedule.push(next, id) }
            }
        } catch {
            logger.error("transit.scheduleFailed", [("message", .string("reading the rides failed (tried again next second): \(error)"))])
        }
    }

    // MARK: Ending and reading

    /// The rider ends the card ("Beenden"). False when the ride had ended already.
    public func end(_ id: String, now: Date, note: String = "the rider ended it") throws -> Bool {
        try door.write(now: now) { change in
            // The card first, as an evaluation takes it: no two transactions wait for each other.
            _ = try change.lockContext("trip:\(id)")
            guard
                try change.sql.execute(
                    "UPDATE transit_tracked_trips SET ended_at = $2, next_at = NULL WHERE id = $1 AND ended_at IS NULL", [.text(id), SQLValue(now)])
                    == 1
            else { return false }
            try change.end("trip:\(id)", note: note)
            return true
        }
    }

    /// The ride `id` of `householdID` (nil when there is none there).
    public func read(_ id: String, householdID: HouseholdID) throws -> (trip: TrackedTrip, rev: Int)? {
        try door.read { read in
            guard let trip = try self.read(id, in: read.sql), trip.householdID == householdID else { return nil }
            return (trip, try read.revision(trip.contextKey) ?? 0)
        }
    }

    /// The rides of `userID` still going.
    public func active(userID: UserID) throws -> [String] {
        try door.read { read in
            try read.sql.query("SELECT id FROM transit_tracked_trips WHERE user_id = $1 AND ended_at IS NULL ORDER BY created_at", [SQLValue(userID)])
                .map { try $0.string("id") }
        }
    }

    /// The newest rides still going, at most `limit` (the dashboard's feeds page).
    public func followed(limit: Int) throws -> [TrackedTrip] {
        try door.read { read in
            try read.sql.query(
                "SELECT \(TrackedTrip.columns) FROM transit_tracked_trips WHERE ended_at IS NULL ORDER BY created_at DESC, id LIMIT $1",
                [.integer(Int64(limit))]
            ).map(TrackedTrip.init(row:))
        }
    }

    func read(_ id: String, in sql: any SQLTransaction) throws -> TrackedTrip? {
        try sql.queryOne("SELECT \(TrackedTrip.columns) FROM transit_tracked_trips WHERE id = $1", [.text(id)]).map(TrackedTrip.init(row:))
    }

    /// How often the schedule looks in the database for rides due soon.
    static let rereadInterval: TimeInterval = 5

    /// Rides scheduled (tests, metrics).
    public var scheduled: Int { schedule.withLock { $0.count } }
}

/// Rides by next evaluation: a binary min-heap of (time, id), each ride in it once (a ride
/// scheduled already is not added again; the evaluation finds the stored time and goes by that).
struct Schedule {
    private var heap: [(Date, String)] = []
    private var members: Set<String> = []
    var loaded = false
    /// When the database was last read for due rides.
    var readAt: Date?
    var count: Int { heap.count }

    mutating func push(_ at: Date, _ id: String) {
        guard members.insert(id).inserted else { return }
        heap.append((at, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].0 < heap[parent].0 else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes every entry due at `now`, earliest first.
    mutating func popDue(_ now: Date) -> [String] {
        var due: [String] = []
        while let first = heap.first, first.0 <= now {
            due.append(first.1)
            members.remove(first.1)
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].0 < heap[smallest].0 { smallest = left }
                if right < heap.count, heap[right].0 < heap[smallest].0 { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return due
    }
}
