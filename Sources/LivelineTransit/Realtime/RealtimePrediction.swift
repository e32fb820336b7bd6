import Foundation

/// One stop of a trip with its real-time prediction: what ``apply(_:to:serviceDay:)`` makes of a
/// trip update and the trip's scheduled stop times.
///
/// A stop without a prediction (`hasRealtime == false`) has only its schedule; the caller shows
/// scheduled times and says it has no real time: a trip missing from the feed must not be shown as
/// on time (https://gtfs.org/documentation/realtime/feed-entities/trip-updates/).
public struct RealtimePrediction: Sendable, Hashable {
    public var stopSequence: Int
    public var stopID: String
    public var scheduledArrival: Date
    public var scheduledDeparture: Date
    /// The predicted arrival (`nil`: no prediction, or the stop is skipped).
    public var arrival: Date?
    /// The predicted departure (`nil`: no prediction, or the stop is skipped).
    public var departure: Date?
    /// Seconds the arrival is late (negative: early), `nil` without a prediction.
    public var arrivalDelay: Int?
    /// Seconds the departure is late (negative: early), `nil` without a prediction.
    public var departureDelay: Int?
    /// The vehicle does not stop here (a `SKIPPED` stop, or a canceled trip).
    public var skipped: Bool

    public init(
        stopSequence: Int, stopID: String, scheduledArrival: Date, scheduledDeparture: Date, arrival: Date? = nil, departure: Date? = nil,
        arrivalDelay: Int? = nil, departureDelay: Int? = nil, skipped: Bool = false
    ) {
        self.stopSequence = stopSequence
        self.stopID = stopID
        self.scheduledArrival = scheduledArrival
        self.scheduledDeparture = scheduledDeparture
        self.arrival = arrival
        self.departure = departure
        self.arrivalDelay = arrivalDelay
        self.departureDelay = departureDelay
        self.skipped = skipped
    }

    /// The stop's delay in seconds: the arrival's, else the departure's.
    public var delay: Int? { arrivalDelay ?? departureDelay }

    /// Whether real time says something about this stop: a predicted time, or that it is skipped.
    public var hasRealtime: Bool { skipped || arrival != nil || departure != nil }

    /// When the vehicle is expected to arrive: the prediction, else the schedule (skipped stops too).
    public var expectedArrival: Date { arrival ?? scheduledArrival }

    /// When the vehicle is expected to leave: the prediction, else the schedule (skipped stops too).
    public var expectedDeparture: Date { departure ?? scheduledDeparture }
}

extension RealtimePrediction {
    /// Applies one trip's update to its scheduled stop times, one prediction per stop time, in
    /// the same order.
    ///
    /// - Parameters:
    ///   - update: the trip's update from the feed; `nil` (the trip is not in the feed) gives no
    ///     prediction at all.
    ///   - stopTimes: the trip's stop times in `stop_sequence` order, times in seconds since
    ///     `serviceDay` (they may pass 24 h).
    ///   - serviceDay: noon minus 12 h of the trip's service day in the agency's time zone
    ///     (``ServiceDay/reference(in:)``).
    ///
    /// The rules, from the reference (https://gtfs.org/documentation/realtime/feed-entities/trip-updates/
    /// and https://gtfs.org/documentation/realtime/reference/#message-stoptimeupdate):
    /// - A stop time update is found by `stop_sequence`, else by `stop_id`: the first visit at or
    ///   after the stop after the previous update's (so a stop visited twice takes the updates in
    ///   order). Updates that match no stop are ignored.
    /// - An event's `time` wins over its `delay`; a time gives the delay `time − scheduled`.
    ///   A missing departure takes the arrival's delay, a missing arrival the departure's.
    /// - The departure delay of an update propagates to the following stops until the next update.
    ///   A `SKIPPED` stop is skipped and passes the delay on; `NO_DATA`, or an update with neither
    ///   time nor delay, ends the prediction: that stop and the following ones have none until
    ///   the next update with data.
    /// - The trip's `delay` applies from the first stop until the first update (the reference:
    ///   "trip-level delay is only propagated until the next stop along the trip with a
    ///   StopTimeUpdate delay value specified"); without it, the stops before the first update
    ///   have no prediction.
    /// - A `CANCELED` (or `DELETED`) trip skips every stop.
    public static func apply(_ update: RealtimeFeed.TripUpdate?, to stopTimes: [GTFSStopTime], serviceDay: Date) -> [RealtimePrediction] {
        var predictions = stopTimes.map { stop in
            RealtimePrediction(
                stopSequence: stop.stopSequence, stopID: stop.stopID,
                scheduledArrival: serviceDay.addingTimeInterval(TimeInterval(stop.arrival)),
                scheduledDeparture: serviceDay.addingTimeInterval(TimeInterval(stop.departure)))
        }
        guard let update else { return predictions }
        if update.isCanceled {
            for index in predictions.indices { predictions[index].skipped = true }
            return predictions
        }
        let updates = match(update.stopTimeUpdates, to: stopTimes)
        // The delay carried from the last update (or the trip's) to the stops without one.
        var carried = update.delay
        for index in predictions.indices {
            guard let stopUpdate = updates[index] else {
                if let carried { predictions[index].predict(arrivalDelay: carried, departureDelay: carried) }
                continue
            }
            switch stopUpdate.scheduleRelationship {
            case .skipped:
                predictions[index].skipped = true
            case .noData:
                carried = nil
            default:
                let prediction = predictions[index]
                let arrival = stopUpdate.arrival.flatMap { $0.resolved(against: prediction.scheduledArrival) }
                let departure = stopUpdate.departure.flatMap { $0.resolved(against: prediction.scheduledDeparture) }
                guard let arrivalDelay = arrival?.delay ?? departure?.delay, let departureDelay = departure?.delay ?? arrival?.delay else {
                    carried = nil
                    continue
                }
                predictions[index].predict(arrivalDelay: arrivalDelay, departureDelay: departureDelay)
                // An absolute time is kept as given, not rebuilt from the schedule.
                if let time = arrival?.time { predictions[index].arrival = time }
                if let time = departure?.time { predictions[index].departure = time }
                carried = departureDelay
            }
        }
        return predictions
    }

    /// Each stop time's update (by index), matched by `stop_sequence`, else by the next visit of
    /// `stop_id` after the previous match.
    private static func match(_ updates: [RealtimeFeed.StopTimeUpdate], to stopTimes: [GTFSStopTime]) -> [RealtimeFeed.StopTimeUpdate?] {
        var matched = [RealtimeFeed.StopTimeUpdate?](repeating: nil, count: stopTimes.count)
        var position = 0
        for update in updates {
            var found: Int?
            if let sequence = update.stopSequence { found = stopTimes.firstIndex { $0.stopSequence == sequence } }
            if found == nil, let stopID = update.stopID, position < stopTimes.count {
                found = stopTimes[position...].firstIndex { $0.stopID == stopID }
            }
            guard let found else { continue }
            matched[found] = update
            position = found + 1
        }
        return matched
    }

    /// Sets the predicted times from the delays (each against its own scheduled time).
    private mutating func predict(arrivalDelay: Int, departureDelay: Int) {
        self.arrivalDelay = arrivalDelay
        self.departureDelay = departureDelay
        arrival = scheduledArrival.addingTimeInterval(TimeInterval(arrivalDelay))
        departure = scheduledDeparture.addingTimeInterval(TimeInterval(departureDelay))
    }
}

extension RealtimeFeed.StopTimeEvent {
    /// The event's delay against `scheduled`, and its absolute time when it has one: the time
    /// wins over the delay, and gives the delay `time − scheduled`.
    fileprivate func resolved(against scheduled: Date) -> (delay: Int, time: Date?)? {
        if let time {
            let date = Date(timeIntervalSince1970: TimeInterval(time))
            // Clamped: the feed's int64 can lie beyond what an Int of seconds between two dates holds.
            return (Int(max(-1e15, min(1e15, date.timeIntervalSince(scheduled).rounded()))), date)
        }
        return delay.map { ($0, nil) }
    }
}
