import Foundation
import LivelineEngine
import LivelineLog
import LivelineStore
import LivelineTransit

/// `liveline-bench transit-load FEED` and `liveline-bench tracker [RIDES]`: the transit feature's
/// figures (`scripts/bench-transit.sh` runs them beside gtfs-kit).
public enum TransitBenchmark {
    /// Reads and checks `feed`, then loads it into a fresh SQLite database; prints the times and
    /// this process's peak memory (the load is all it did), in the same words as the gtfs-kit peer.
    public static func load(feed path: URL, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-transit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder, features: [TransitFeature().featureMigrations])
        let started = ContinuousClock.now
        let (feed, report, fingerprint) = try GTFSReader.readWithFingerprint(path)
        let read = ContinuousClock.now
        guard !report.hasErrors else { throw GTFSError("\(path.lastPathComponent) has errors:\n\(report)") }
        let (loaded, _) = try TransitFeedStore(door: EngineDoor(store: store, clock: { Date() })).load(
            feed, fingerprint: fingerprint, source: path.path, now: Date())
        let stored = ContinuousClock.now
        output(
            String(
                format:
                    "liveline: %@: %d stops, %d trips, %d stop times read and checked in %.2f s, stored in SQLite in %.2f s (%.2f s in all); peak memory %.0f MB",
                path.lastPathComponent, loaded.stops, loaded.trips, loaded.stopTimes, seconds(read - started), seconds(stored - read),
                seconds(stored - started), peakMegabytes()))
    }

    /// The tracker's loop with `rides` rides on the demo feed: the cost of a tick when none is
    /// due (with 100 rides and with all of them: it must not grow), and of a tick with 1 % due,
    /// per evaluated ride (CPU time).
    public static func tracker(rides count: Int, output: @Sendable (String) -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-tracker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store.openSQLite(folder: folder, features: [TransitFeature().featureMigrations])
        // 07:40 Berlin on the demo day: the morning's trips have not left yet.
        let start = Date(timeIntervalSince1970: 1_781_733_600 + 7 * 3600 + 40 * 60)
        let door = EngineDoor(store: store, clock: { start })
        let feedFolder = try DemoFeed.write(to: folder.appendingPathComponent("feed"))
        let (feed, _, fingerprint) = try GTFSReader.readWithFingerprint(feedFolder)
        let (loaded, _) = try TransitFeedStore(door: door).load(feed, fingerprint: fingerprint, source: "demo", now: start)
        let timetables = TransitTimetables(door: door)
        timetables.remember(feed, id: loaded.id)
        let user = try store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🚋", locale: "de", tokenHash: String(repeating: "d", count: 64), now: start)
        let logger = Logger.discarding
        var last: (rides: Int, tracker: TripTracker)?
        var made = 0
        // The weekday trips that arrive within 7 h 45 min (a ride arriving later is refused), boarding at their first stop.
        let zone = feed.timeZone ?? TimeZone(secondsFromGMT: 0) ?? .current
        let trips = feed.trips.values.filter { trip in
            guard trip.serviceID == "weekday", let times = feed.stopTimes[trip.id], times.count > 2, let last = times.last, let first = times.first
            else {
                return false
            }
            return DemoFeed.serviceDay.date(first.departure, in: zone) > start
                && DemoFeed.serviceDay.date(last.arrival, in: zone) < start.addingTimeInterval(7 * 3600 + 45 * 60)
        }.map(\.id).sorted()
        for target in [100, count] where target > made {
            let tracker = TripTracker(door: door, timetables: timetables, realtime: RealtimeSource(location: nil, logger: logger), logger: logger)
            let before = ContinuousClock.now
            while made < target {
                let trip = trips[made % trips.count]
                guard let times = feed.stopTimes[trip], times.count > 2 else { continue }
                _ = try tracker.start(
                    householdID: user.householdID, userID: user.id, tripID: trip, fromStopID: times[0].stopID,
                    toStopID: times[times.count - 1].stopID,
                    serviceDay: DemoFeed.serviceDay, now: start)
                made += 1
            }
            let stored = try store.database.read {
                try $0.queryOne("SELECT COUNT(*) AS n FROM transit_tracked_trips WHERE ended_at IS NULL")?.int("n") ?? 0
            }
            output(String(format: "  %d rides started in %.2f s (%d tracked)", made, seconds(ContinuousClock.now - before), stored))
            // Idle ticks: nothing due. The first tick reads the schedule (every ride tracked so far); the figure is of the ticks after.
            tracker.evaluateDue(now: start)
            let rounds = 10_000
            let cpu = processCPU()
            let started = ContinuousClock.now
            for _ in 0..<rounds { tracker.evaluateDue(now: start) }
            let wall = seconds(ContinuousClock.now - started) / Double(rounds)
            let used = (processCPU() - cpu) / Double(rounds)
            output(
                String(
                    format: "idle tick with %6d rides tracked (%d scheduled): %.2f µs (CPU %.2f µs)", stored, tracker.scheduled, wall * 1e6,
                    used * 1e6))
            last = (stored, tracker)
        }
        // 1 % due: the evaluation of those, per ride.
        guard let (rides, _) = last else { return }
        let due = max(1, rides / 100)
        let ids = try store.database.read { read in
            try read.query("SELECT id FROM transit_tracked_trips ORDER BY id LIMIT \(due)").map { try $0.string("id") }
        }
        let later = start.addingTimeInterval(60)
        try store.database.write { write in
            try write.execute("UPDATE transit_tracked_trips SET next_at = $1", [SQLValue(later.addingTimeInterval(3600))])
            for id in ids { try write.execute("UPDATE transit_tracked_trips SET next_at = $2 WHERE id = $1", [.text(id), SQLValue(later)]) }
        }
        let fresh = TripTracker(door: door, timetables: timetables, realtime: RealtimeSource(location: nil, logger: logger), logger: logger)
        fresh.evaluateDue(now: start)  // reads the schedule: nothing due yet
        let cpu = processCPU()
        let before = ContinuousClock.now
        fresh.evaluateDue(now: later)
        let wall = seconds(ContinuousClock.now - before)
        let used = processCPU() - cpu
        output(
            String(
                format: "tick with %d of %d rides due: %.1f ms, %.0f µs per evaluated ride (CPU %.0f µs; each one transaction on SQLite)", due, rides,
                wall * 1000, wall / Double(due) * 1e6, used / Double(due) * 1e6))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// This process's CPU time so far (user + system), in seconds.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// This process's peak resident memory (getrusage), in MB.
    static func peakMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
