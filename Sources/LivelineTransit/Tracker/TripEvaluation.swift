import Foundation
import LivelineModel
import LivelineTransitModel

/// One stop of a tracked ride as the evaluation sees it: its name and the prediction for it.
public struct RideStop: Sendable, Hashable {
    public var name: String
    public var prediction: RealtimePrediction

    public init(name: String, prediction: RealtimePrediction) {
        self.name = name
        self.prediction = prediction
    }
}

/// What a ride's card shows at a moment (`docs/features/transit.md`, "The tracker"), and when to
/// look again. A pure function of the trip's stops with their predictions, the rider's segment,
/// the occupancy and the time.
public struct TripEvaluation: Sendable, Hashable {
    public var state: TripLiveActivityAttributes.ContentState
    /// When the ride should be evaluated next (the spec's cadence); nil once arrived.
    public var next: Date?
    /// Whether the times come from real-time data (else the schedule, `delay` 0, occupancy unknown).
    public var realtime: Bool

    /// The cadence: departure more than 5 minutes away every 30 s, within 5 minutes every 10 s;
    /// riding with the next stop more than a minute away every 15 s, within a minute every 5 s.
    static func cadence(phase: TripPhase, until event: TimeInterval) -> TimeInterval? {
        switch phase {
        case .beforeDeparture: event > 300 ? 30 : 10
        case .inProgress: event > 60 ? 15 : 5
        case .arrived: nil
        }
    }

    /// `stops` are the trip's stops in order; the rider boards at `from` and leaves at `to`
    /// (indexes into `stops`, `from < to`). With `realtime` false the predictions are ignored:
    /// the schedule, delay 0, occupancy unknown.
    public static func evaluate(
        stops: [RideStop], from: Int, to: Int, occupancy: OccupancyLevel, realtime: Bool, now: Date
    ) -> TripEvaluation {
        func departure(_ index: Int) -> Date {
            realtime ? stops[index].prediction.expectedDeparture : stops[index].prediction.scheduledDeparture
        }
        func arrival(_ index: Int) -> Date { realtime ? stops[index].prediction.expectedArrival : stops[index].prediction.scheduledArrival }
        func delayMinutes(_ index: Int) -> Int {
            guard realtime, let seconds = stops[index].prediction.delay else { return 0 }
            return seconds / 60  // whole minutes, toward zero
        }
        let leaves = departure(from)
        let arrives = arrival(to)
        let span = arrives.timeIntervalSince(leaves)
        let progress = span > 0 ? min(1, max(0, now.timeIntervalSince(leaves) / span)) : (now >= arrives ? 1 : 0)
        let shownOccupancy = realtime ? occupancy : .unknown
        if now >= arrives {
            let state = TripLiveActivityAttributes.ContentState(
                currentStop: stops[to].name, nextStop: stops[to].name, nextStopTime: arrives, remainingTime: 0, delay: delayMinutes(to),
                occupancy: shownOccupancy, phase: .arrived, progress: 1)
            return TripEvaluation(state: state, next: nil, realtime: realtime)
        }
        if now < leaves {
            // Before departure the next event is the rider's: the vehicle leaving the boarding stop.
            let state = TripLiveActivityAttributes.ContentState(
                currentStop: stops[from].name, nextStop: stops[from].name, nextStopTime: leaves, remainingTime: leaves.timeIntervalSince(now),
                delay: delayMinutes(from), occupancy: shownOccupancy, phase: .beforeDeparture, progress: 0)
            let wait = cadence(phase: .beforeDeparture, until: leaves.timeIntervalSince(now)) ?? 30
            return TripEvaluation(state: state, next: min(now.addingTimeInterval(wait), leaves), realtime: realtime)
        }
        // Riding: the last stop of the segment the vehicle left, and the next one it stops at.
        var current = from
        for index in from..<to where !(realtime && stops[index].prediction.skipped) && departure(index) <= now { current = index }
        var next = to
        for index in (current + 1)...to where !(realtime && stops[index].prediction.skipped) {
            next = index
            break
        }
        let nextTime = arrival(next)
        let state = TripLiveActivityAttributes.ContentState(
            currentStop: stops[current].name, nextStop: stops[next].name, nextStopTime: nextTime,
            remainingTime: max(0, nextTime.timeIntervalSince(now)), delay: delayMinutes(next), occupancy: shownOccupancy, phase: .inProgress,
            progress: progress)
        let wait = cadence(phase: .inProgress, until: nextTime.timeIntervalSince(now)) ?? 15
        return TripEvaluation(state: state, next: min(now.addingTimeInterval(wait), max(arrives, now.addingTimeInterval(1))), realtime: realtime)
    }

    /// The ride's evaluation at `now` from the timetable and the real-time feed in effect (`live`):
    /// its stops with the feed's predictions when the feed is fresh and has real time for the
    /// rider's stops (NO_DATA there is the schedule); else the schedule. The tracker and
    /// `liveline transit replay` both evaluate through here.
    public static func evaluate(
        feed: GTFSFeed, times: [GTFSStopTime], tripID: String, day: ServiceDay, from: Int, to: Int, live: RealtimeFeed?, now: Date
    ) -> TripEvaluation {
        let zone = feed.timeZone ?? TimeZone(secondsFromGMT: 0) ?? .current
        let fresh = live.flatMap { $0.isStale(at: now) ? nil : $0 }
        let update = fresh?.tripUpdate(tripID: tripID, startDate: day.gtfsDate)
        let predictions = RealtimePrediction.apply(update, to: times, serviceDay: day.reference(in: zone))
        let stops = zip(times, predictions).map { RideStop(name: feed.stops[$0.stopID]?.name ?? $0.stopID, prediction: $1) }
        let occupancy = fresh?.vehiclePosition(tripID: tripID, startDate: day.gtfsDate)?.occupancy ?? .unknown
        let known = update != nil && predictions[from...to].contains(where: \.hasRealtime)
        return evaluate(stops: stops, from: from, to: to, occupancy: occupancy, realtime: known, now: now)
    }

    /// Why `new` is worth a push after `old` (what the card shows changed: stop, phase, delay,
    /// occupancy, or progress by 5 points), or nil. A countdown needs no push: the card renders
    /// it from `nextStopTime`.
    public static func pushReason(from old: TripLiveActivityAttributes.ContentState?, to new: TripLiveActivityAttributes.ContentState) -> String? {
        guard let old else { return "the first state" }
        if old.phase != new.phase { return "phase \(old.phase.rawValue) → \(new.phase.rawValue)" }
        if old.delay != new.delay { return "delay \(old.delay) → \(new.delay) min" }
        if old.currentStop != new.currentStop || old.nextStop != new.nextStop {
            return "stop \(old.currentStop) → \(new.currentStop), next \(new.nextStop)"
        }
        if old.occupancy != new.occupancy { return "occupancy \(old.occupancy.rawValue) → \(new.occupancy.rawValue)" }
        if abs(new.progress - old.progress) >= 0.05 { return "progress \(Int(old.progress * 100)) → \(Int(new.progress * 100)) %" }
        if abs(new.nextStopTime.timeIntervalSince(old.nextStopTime)) >= 60 { return "next stop's time moved a minute" }
        return nil
    }
}
