import Foundation
import LivelineModel
import LivelineTransitModel

/// A ride followed offline (`liveline transit replay`, the developer's microscope): the tracker's
/// evaluation on a clock that starts at the first snapshot's header time and moves on by the
/// cadence, each snapshot taking effect at its header timestamp; what would be pushed, and why.
/// It pushes nothing.
public struct TripReplay: Sendable {
    /// One evaluation.
    public struct Line: Sendable, Hashable {
        public var at: Date
        /// The header time of the snapshot in effect, nil when none was (yet) or it was stale.
        public var feedTimestamp: Int?
        public var state: TripLiveActivityAttributes.ContentState
        public var push: Push?
        public var realtime: Bool
    }

    public struct Push: Sendable, Hashable {
        /// `update`, or `end` once arrived.
        public var event: String
        public var priority: Int
        public var why: String
    }

    public var lines: [Line] = []
    public var pushes: Int { lines.filter { $0.push != nil }.count }
    public var priority10: Int { lines.filter { $0.push?.priority == 10 }.count }
    public var arrivedAt: Date? { lines.last { $0.state.phase == .arrived }?.at }

    /// Priority-10 pushes per trip and hour (the spec's budget); material changes beyond it go at 5.
    public static let priorityBudget = 15

    /// Replays `tripID` from stop `fromStopID` to `toStopID` on `serviceDay` over `snapshots`
    /// (any order; taken by header timestamp). Throws when the trip or the stops are not in
    /// `feed` in that order.
    public static func run(
        feed: GTFSFeed, snapshots: [RealtimeFeed], tripID: String, fromStopID: String, toStopID: String, serviceDay: ServiceDay
    ) throws -> TripReplay {
        guard let stopTimes = feed.stopTimes[tripID] else { throw GTFSError("there is no trip \(tripID) in the feed") }
        guard let from = stopTimes.firstIndex(where: { $0.stopID == fromStopID }),
            let to = stopTimes[(from + 1)...].firstIndex(where: { $0.stopID == toStopID })
        else { throw GTFSError("trip \(tripID) does not call at \(fromStopID) and then at \(toStopID)") }
        let ordered = snapshots.sorted { ($0.header.timestamp ?? 0) < ($1.header.timestamp ?? 0) }
        guard let first = ordered.first?.header.timestamp else { throw GTFSError("no snapshot has a header timestamp") }
        var replay = TripReplay()
        var now = Date(timeIntervalSince1970: TimeInterval(first))
        var lastPushed: TripLiveActivityAttributes.ContentState?
        var priority10: [Date] = []
        let limit = Date(timeIntervalSince1970: TimeInterval(first)).addingTimeInterval(9 * 3600)  // an activity lives at most 8 hours
        while now < limit {
            let inEffect = ordered.last { ($0.header.timestamp ?? 0) <= Int(now.timeIntervalSince1970) }
            let fresh = inEffect.flatMap { $0.isStale(at: now) ? nil : $0 }
            let evaluation = TripEvaluation.evaluate(
                feed: feed, times: stopTimes, tripID: tripID, day: serviceDay, from: from, to: to, live: inEffect, now: now)
            var push: Push?
            if let why = TripEvaluation.pushReason(from: lastPushed, to: evaluation.state) {
                priority10.removeAll { now.timeIntervalSince($0) >= 3600 }
                let material = lastPushed.map { TripLiveActivityAttributes.materialChange(from: $0, to: evaluation.state) != nil } ?? true
                let priority = material && priority10.count < priorityBudget ? 10 : 5
                if priority == 10 { priority10.append(now) }
                let over = material && priority == 5 ? " (over the hour's budget of \(priorityBudget))" : ""
                push = Push(event: evaluation.state.phase == .arrived ? "end" : "update", priority: priority, why: why + over)
                lastPushed = evaluation.state
            }
            replay.lines.append(
                Line(at: now, feedTimestamp: fresh?.header.timestamp, state: evaluation.state, push: push, realtime: evaluation.realtime))
            guard let next = evaluation.next else { break }
            now = next
        }
        return replay
    }
}
