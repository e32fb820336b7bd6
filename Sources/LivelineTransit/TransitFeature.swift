import Foundation
import LivelineAPI
import LivelineEngine
import LivelineModel
import LivelineStore
import LivelineTransitModel

/// Transit trips (`docs/features/transit.md`), as a feature of the server. So far: the GTFS feed
/// (`LIVELINE_GTFS_PATH`, else the demo feed the server ships) is read and checked at start — a
/// feed with errors is refused with the validator's report, warnings are logged — and loaded into
/// the database when its files changed.
public struct TransitFeature: Feature {
    public init() {}

    public var name: String { "transit" }
    public var contracts: [any LiveActivityContract.Type] { [TripLiveActivityAttributes.self] }
    public var migrations: [Migration] { TransitMigrations.all }

    public static let gtfsPath = Setting(
        "LIVELINE_GTFS_PATH", default: "the demo feed", values: "a .zip file or a folder",
        meaning:
            "the GTFS static feed; one with errors is refused with the validator's report (`liveline transit check FEED`), "
            + "warnings are logged; loaded again only when its files changed"
    )
    public static let realtimeURL = Setting(
        "LIVELINE_GTFS_RT_URL", default: "none", values: "an https:// or http:// address, or a file path",
        meaning:
            "the GTFS-Realtime feed with trip updates and vehicle positions, fetched at most every 5 s; without one, rides use the "
            + "timetable; one that fails or does not decode keeps the last good one (logged, /metrics)"
    )
    public static let checkInterval = Setting(
        "LIVELINE_GTFS_CHECK_INTERVAL_S", default: "60", range: 1...86_400,
        meaning: "seconds between two looks at the files of LIVELINE_GTFS_PATH for a change"
    )
    public var settings: [Setting] { [Self.gtfsPath, Self.realtimeURL, Self.checkInterval] }

    public func install(into setup: FeatureSetup) throws {
        let checkInterval = try setup.integer(Self.checkInterval)
        let configured = setup.environment[Self.gtfsPath.name].flatMap { $0.isEmpty ? nil : $0 }
        let path: URL
        if let configured {
            path = URL(fileURLWithPath: configured)
        } else {
            path = try DemoFeed.write(to: FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-gtfs-\(UUID().uuidString)"))
        }
        defer { if configured == nil { try? FileManager.default.removeItem(at: path) } }
        let today = ServiceDay.containing(setup.clock(), in: TimeZone(secondsFromGMT: 0) ?? .current)
        let feed: GTFSFeed
        let report: GTFSReport
        let fingerprint: String
        do {
            (feed, report, fingerprint) = try GTFSReader.readWithFingerprint(path, today: today)
        } catch let error as GTFSError {
            throw FeatureSettingError("\(Self.gtfsPath.name) \(path.path): \(error.message)")
        }
        if report.hasErrors {
            throw FeatureSettingError("\(Self.gtfsPath.name) \(path.path): the feed has errors, so it is not loaded:\n\(report)")
        }
        if !report.notices.isEmpty {
            setup.logger.warning("transit.feedWarnings", [("feed", .string(path.lastPathComponent)), ("report", .string(report.description))])
        }
        let source = configured ?? "demo feed (rnv line 5)"
        let (loaded, fresh) = try TransitFeedStore(door: setup.door).load(feed, fingerprint: fingerprint, source: source, now: setup.clock())
        let timetables = TransitTimetables(door: setup.door)
        timetables.remember(feed, id: loaded.id)
        let realtime = RealtimeSource(location: setup.environment[Self.realtimeURL.name], logger: setup.logger)
        let tracker = TripTracker(door: setup.door, timetables: timetables, realtime: realtime, logger: setup.logger)
        let type = TripLiveActivityAttributes.typeName
        setup.snapshotSource(TripCard(), for: type)
        // Stale after 10 minutes without news; gone 30 s after the arrival; 15 priority-10 pushes an hour.
        setup.lifecycle(
            ActivityLifecycle(staleAfter: 10 * 60, dismissAfter: 30, priorityBudget: TripReplay.priorityBudget, dismissFromEnd: true), for: type)
        setup.periodicTask(TrackerTask(tracker: tracker))
        let watcher = configured.map { _ in
            FeedWatcher(
                path: path, store: TransitFeedStore(door: setup.door), timetables: timetables, logger: setup.logger,
                interval: TimeInterval(checkInterval), loadedAt: setup.clock())
        }
        if let watcher { setup.periodicTask(WatcherTask(watcher: watcher)) }
        setup.routes { router, context in TransitHandlers(context: context, tracker: tracker).addRoutes(to: &router) }
        setup.documentation(TransitDocumentation.part)
        setup.dashboardPage(TransitDashboard.panel(door: setup.door, tracker: tracker, realtime: realtime, report: report, clock: setup.clock))
        setup.metrics {
            [
                MetricFamily(
                    name: "liveline_transit_realtime_failures_total", type: "counter",
                    help: "GTFS-Realtime fetches that failed or did not decode (the last good feed stayed in use).",
                    samples: [([:], Double(realtime.failures))]),
                MetricFamily(
                    name: "liveline_transit_feed_refusals_total", type: "counter",
                    help: "Changed GTFS feeds not loaded (errors, unreadable); the previous feed stayed in use.",
                    samples: [([:], Double(watcher?.failures ?? 0))]),
                MetricFamily(
                    name: "liveline_transit_rides_scheduled", type: "gauge", help: "Rides in the tracker's schedule of this process.",
                    samples: [([:], Double(tracker.scheduled))]),
            ]
        }
        setup.logger.info(
            fresh ? "transit.feedLoaded" : "transit.feedKept",
            [
                ("feed", .string(source)), ("fingerprint", .string(loaded.fingerprint)), ("stops", .int(loaded.stops)), ("trips", .int(loaded.trips)),
                ("stopTimes", .int(loaded.stopTimes)),
            ])
    }
}

/// Looks for a changed feed, on the engine's sweep.
struct WatcherTask: PeriodicTask {
    let watcher: FeedWatcher
    func run(now: Date) { watcher.run(now: now) }
}

/// The tracker's loop, on the engine's sweep (every second): the rides that are due.
struct TrackerTask: PeriodicTask {
    let tracker: TripTracker
    func run(now: Date) { tracker.evaluateDue(now: now) }
}
