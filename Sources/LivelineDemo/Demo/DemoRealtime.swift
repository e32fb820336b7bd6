import Foundation
import LivelineScheduling
import LivelineTransit
import LivelineTransitModel

/// The GTFS-Realtime feed of the demo's tram rides, a file the server reads as any real-time feed
/// (`LIVELINE_GTFS_RT_URL`, fetched at most every 5 s of the server's clock).
///
/// The demo feed ships one recorded-style sequence (`Sources/LivelineTransit/Demo/README.md`,
/// "rt/"): a snapshot a minute of trip `5-wd-hd-0802` on 2026-06-18, with its delays, a skipped
/// stop and the occupancy. A ride on a trip that runs like it (same stops, same running times) gets
/// that sequence moved in time to the ride's trip and day; every demo second (at most four times a
/// real second) the snapshot in effect at the demo clock's time is written (atomically, only when it changes). Otherwise —
/// and between rides — the file holds a fresh feed without trips, and rides follow the timetable.
final class DemoRealtime: @unchecked Sendable {
    let file: URL
    private let clock: DemoClock
    private let timetable: DemoTimetable
    private let recorded: [RealtimeFeed]
    private let queue = DispatchQueue(label: "liveline-demo-realtime")
    private var timer: RepeatingTimer?
    /// Touched on `queue` only.
    private var snapshots: [RealtimeFeed] = []
    private var written: (key: String, timestamp: Int) = ("", 0)

    init(file: URL, clock: DemoClock, timetable: DemoTimetable) {
        self.file = file
        self.clock = clock
        self.timetable = timetable
        recorded = DemoFeed.snapshots.compactMap { try? RealtimeFeed.decode($0) }
    }

    /// Writes the first feed at once, then keeps the file current.
    func start() throws {
        try queue.sync { try publish() }
        // Often enough that a new snapshot is written within a demo second of its time: the
        // one before is 60 s old then, and past 65 s a feed is stale.
        let interval = Double(max(10, min(250, Int(1000 / clock.speed)))) / 1000
        timer = RepeatingTimer(every: interval, queue: queue) { [self] in try? publish() }
    }

    func stop() { queue.sync { timer?.cancel() } }

    /// Replays the recorded sequence for `ride`'s trip from now on; false (and no real time) when
    /// the trip does not run like the recorded one.
    @discardableResult
    func follow(_ ride: DemoRide) -> Bool {
        guard timetable.runsLikeTheRecordedTrip(ride.tripID), let recordedStart = timetable.recordedTripStart else {
            queue.sync { snapshots = [] }
            return false
        }
        let shift = Int(ride.tripStart.timeIntervalSince(recordedStart).rounded())
        let moved = recorded.map { Self.move($0, by: shift, to: ride) }
        queue.sync { snapshots = moved }
        return true
    }

    /// `snapshot` `seconds` later, about `ride`'s trip and day.
    static func move(_ snapshot: RealtimeFeed, by seconds: Int, to ride: DemoRide) -> RealtimeFeed {
        func later(_ time: Int?) -> Int? { time.map { $0 + seconds } }
        func retarget(_ trip: inout RealtimeFeed.TripDescriptor) {
            trip.tripID = ride.tripID
            trip.startDate = ride.day.gtfsDate
            trip.startTime = nil
        }
        var moved = snapshot
        moved.header.timestamp = later(snapshot.header.timestamp)
        for index in moved.entities.indices {
            if var update = moved.entities[index].tripUpdate {
                retarget(&update.trip)
                update.timestamp = later(update.timestamp)
                update.stopTimeUpdates = update.stopTimeUpdates.map { stop in
                    var stop = stop
                    let (arrival, departure) = (stop.arrival?.time, stop.departure?.time)
                    stop.arrival?.time = later(arrival)
                    stop.departure?.time = later(departure)
                    return stop
                }
                moved.entities[index].tripUpdate = update
            }
            if var vehicle = moved.entities[index].vehicle {
                if var trip = vehicle.trip {
                    retarget(&trip)
                    vehicle.trip = trip
                }
                vehicle.timestamp = later(vehicle.timestamp)
                moved.entities[index].vehicle = vehicle
            }
        }
        return moved
    }

    /// Writes the snapshot in effect now (the latest not after the demo clock, for a minute), or
    /// a feed without trips (made anew every 20 demo seconds, so it never goes stale). Header
    /// timestamps only grow: the server takes a feed only when it is newer than the last.
    private func publish() throws {
        let now = Int(clock.now.timeIntervalSince1970)
        let index = snapshots.lastIndex { ($0.header.timestamp ?? 0) <= now }.flatMap { now - (snapshots[$0].header.timestamp ?? 0) < 60 ? $0 : nil }
        let key = index.map { "snapshot \($0)" } ?? "none \(now / 20)"
        guard key != written.key else { return }
        var feed = index.map { snapshots[$0] } ?? RealtimeFeed(header: RealtimeFeed.Header(timestamp: now))
        let timestamp = max(feed.header.timestamp ?? now, written.timestamp + 1)
        feed.header.timestamp = timestamp
        try Data(feed.encoded()).write(to: file, options: .atomic)
        written = (key, timestamp)
    }
}
