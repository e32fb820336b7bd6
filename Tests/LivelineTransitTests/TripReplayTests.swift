import Foundation
import LivelineModel
import Testing

@testable import LivelineTransit
import LivelineTransitModel

/// The tracker's evaluation over the demo's recorded real-time sequence (`Demo/README.md`): trip
/// 5-wd-hd-0802 on 2026-06-18, Mannheim Hauptbahnhof 08:02 → Heidelberg Bismarckplatz 08:50,
/// a delay growing to 4 minutes and shrinking again, Edingen Grenzhöfer Straße skipped.
@Suite struct TripReplayTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-replay-\(UUID().uuidString)")

    static func demo() throws -> (feed: GTFSFeed, snapshots: [RealtimeFeed]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-replay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let feed = try GTFSReader.read(try DemoFeed.write(to: folder)).feed
        return (feed, try DemoFeed.snapshots.map { try RealtimeFeed.decode($0) })
    }

    /// 2026-06-18 `hour:minute:second` in Berlin (UTC+2).
    static func berlin(_ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        Date(timeIntervalSince1970: 1_781_733_600 + TimeInterval(hour * 3600 + minute * 60 + second))
    }

    static func replay(_ snapshots: [RealtimeFeed], feed: GTFSFeed) throws -> TripReplay {
        try TripReplay.run(
            feed: feed, snapshots: snapshots, tripID: DemoFeed.tripID, fromStopID: DemoFeed.fromStopID, toStopID: DemoFeed.toStopID,
            serviceDay: DemoFeed.serviceDay)
    }

    @Test func theRideGoesFromBeforeDepartureToArrivedWithItsDelaysAndAtMostFifteenPriority10PushesAnHour() throws {
        let (feed, snapshots) = try Self.demo()
        let replay = try Self.replay(snapshots, feed: feed)
        let lines = replay.lines
        #expect(lines.first?.at == Self.berlin(7, 52, 3), "the clock starts at the first snapshot")
        // Phases only move forward, and end arrived.
        let phases = lines.map(\.state.phase)
        let order: [TripPhase] = [.beforeDeparture, .inProgress, .arrived]
        #expect(zip(phases, phases.dropFirst()).allSatisfy { order.firstIndex(of: $0)! <= order.firstIndex(of: $1)! })
        #expect(phases.first == .beforeDeparture && phases.last == .arrived && phases.filter { $0 == .arrived }.count == 1)
        // Before departure: the boarding stop, counting down to its departure.
        let waiting = try #require(lines.first)
        #expect(waiting.state.currentStop == "Mannheim Hauptbahnhof" && waiting.state.nextStop == "Mannheim Hauptbahnhof")
        #expect(waiting.state.nextStopTime == Self.berlin(8, 2) && waiting.realtime)
        // The cadence: every 30 s while departure is more than 5 minutes away, then 10 s; riding 15 s / 5 s.
        let early = lines.filter { $0.state.phase == .beforeDeparture && $0.state.remainingTime > 300 }
        #expect(zip(early, early.dropFirst()).allSatisfy { abs($1.at.timeIntervalSince($0.at) - 30) < 0.001 })
        let riding = lines.filter { $0.state.phase == .inProgress }
        #expect(
            zip(riding, riding.dropFirst()).allSatisfy {
                [5, 15].contains(Int(($1.at.timeIntervalSince($0.at)).rounded())) || $1.state.phase != .inProgress
            })
        // The delay peaks at 4 minutes (Seckenheim Rathaus, 240 s) and the card saw standing room.
        #expect(lines.map(\.state.delay).max() == 4)
        #expect(lines.contains { $0.state.occupancy == .high } && lines.contains { $0.state.occupancy == .low })
        // The skipped stop is never where the tram is once the feed says it is skipped.
        let skippedFrom = Self.berlin(8, 24, 3)
        #expect(
            !lines.contains {
                $0.at >= skippedFrom && ($0.state.currentStop == "Edingen Grenzhöfer Straße" || $0.state.nextStop == "Edingen Grenzhöfer Straße")
            })
        // Arrived at 08:50:10 (10 s late), seen within one evaluation, sent as the end.
        let arrived = try #require(replay.arrivedAt)
        #expect(arrived >= Self.berlin(8, 50, 10) && arrived <= Self.berlin(8, 50, 15), "\(arrived)")
        #expect(lines.last?.push?.event == "end" && lines.last?.state.progress == 1)
        // Pushes only when the card changes; priority 10 within the budget.
        #expect(replay.pushes < lines.count / 2 && replay.pushes > 10, "\(replay.pushes) of \(lines.count)")
        #expect(replay.priority10 <= TripReplay.priorityBudget)
        #expect(
            lines.filter { $0.push?.priority == 10 }.allSatisfy {
                $0.push!.why.hasPrefix("phase") || $0.push!.why.hasPrefix("delay") || $0.push!.why == "the first state"
            })
        // The same inputs, the same replay.
        #expect(try Self.replay(snapshots.reversed(), feed: feed).lines == lines)
    }

    @Test func aStaleFeedTurnsTheCardToScheduledTimesWithinOneEvaluation() throws {
        let (feed, snapshots) = try Self.demo()
        // No snapshot from 08:20 to 08:35: the one of 08:19:03 goes stale 65 s later.
        let gap = snapshots.filter { snapshot in
            let at = Date(timeIntervalSince1970: TimeInterval(snapshot.header.timestamp ?? 0))
            return at < Self.berlin(8, 20) || at > Self.berlin(8, 35)
        }
        let lines = try Self.replay(gap, feed: feed).lines
        let stale = lines.filter { $0.at > Self.berlin(8, 20, 9) && $0.at < Self.berlin(8, 35) }
        #expect(
            !stale.isEmpty && stale.allSatisfy { !$0.realtime && $0.state.delay == 0 && $0.state.occupancy == .unknown && $0.feedTimestamp == nil })
        let last = try #require(lines.last { $0.at <= Self.berlin(8, 20, 9) && $0.realtime })
        let first = try #require(lines.first { !$0.realtime && $0.at > Self.berlin(8, 19, 3) })
        #expect(first.at.timeIntervalSince(last.at) <= 15, "within one evaluation of going stale")
        #expect(lines.contains { $0.at > Self.berlin(8, 35) && $0.realtime }, "real time again once snapshots come back")
    }

    @Test func aRideTheTripDoesNotMakeIsRefused() throws {
        let (feed, snapshots) = try Self.demo()
        #expect(throws: GTFSError.self) {
            try TripReplay.run(
                feed: feed, snapshots: snapshots, tripID: DemoFeed.tripID, fromStopID: DemoFeed.toStopID, toStopID: DemoFeed.fromStopID,
                serviceDay: DemoFeed.serviceDay)
        }
        #expect(throws: GTFSError.self) {
            try TripReplay.run(
                feed: feed, snapshots: snapshots, tripID: "nope", fromStopID: DemoFeed.fromStopID, toStopID: DemoFeed.toStopID,
                serviceDay: DemoFeed.serviceDay)
        }
    }
}
