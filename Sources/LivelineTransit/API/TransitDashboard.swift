import Foundation
import LivelineAPI
import LivelineEngine
import LivelineStore

/// The dashboard's feeds page (`/dashboard/feeds`): the static feed loaded, the real-time feed's
/// age and failures, the rides followed and how many are matched to real-time data, and the feed
/// check's notices from when the feed was loaded.
enum TransitDashboard {
    static func panel(
        door: EngineDoor, tracker: TripTracker, realtime: RealtimeSource, report: GTFSReport, clock: @escaping @Sendable () -> Date
    ) -> DashboardPanel {
        DashboardPanel(slug: "feeds", title: "Feeds") {
            let now = clock()
            var sections: [DashboardSection] = []
            if let feed = try TransitFeedStore(door: door).current() {
                sections.append(
                    DashboardSection(
                        heading: "Static feed (GTFS)",
                        facts: [
                            DashboardFact("source", feed.source), DashboardFact("loaded", DashboardFact.age(now.timeIntervalSince(feed.loadedAt))),
                            DashboardFact("time zone", feed.timeZone), DashboardFact("stops", "\(feed.stops)"),
                            DashboardFact("trips", "\(feed.trips)"),
                            DashboardFact("stop times", "\(feed.stopTimes)"),
                        ]))
            } else {
                sections.append(DashboardSection(heading: "Static feed (GTFS)", note: "No feed is loaded."))
            }
            if realtime.isConfigured {
                let status = realtime.status
                var facts = [
                    DashboardFact("last fetched", status.fetchedAt.map { DashboardFact.age(now.timeIntervalSince($0)) } ?? "not yet"),
                    DashboardFact(
                        "feed made", status.headerTimestamp.map { DashboardFact.age(now.timeIntervalSince1970 - Double($0)) } ?? "no header time yet",
                        warning: status.headerTimestamp.map { now.timeIntervalSince1970 - Double($0) > 120 } ?? false),
                    DashboardFact("failed fetches", "\(realtime.failures)", warning: realtime.failures > 0),
                ]
                if let failure = status.lastFailure { facts.append(DashboardFact("last failure", failure, warning: true)) }
                sections.append(DashboardSection(heading: "Real-time feed (GTFS-Realtime)", facts: facts))
            } else {
                sections.append(
                    DashboardSection(
                        heading: "Real-time feed (GTFS-Realtime)",
                        note: "Not configured (LIVELINE_GTFS_RT_URL): rides follow the timetable."))
            }
            let rides = try tracker.followed(limit: 50)
            let matched = rides.filter(\.realtime).count
            sections.append(
                DashboardSection(
                    heading: "Rides followed",
                    facts: [DashboardFact("rides (newest 50)", "\(rides.count)"), DashboardFact("matched to real-time data", "\(matched)")],
                    columns: ["ride", "trip", "line", "to", "real-time", "next look"],
                    rows: rides.map { ride in
                        [
                            ride.contextKey, ride.tripID, ride.attributes.line, ride.attributes.destination, ride.realtime ? "matched" : "timetable",
                            ride.nextAt.map { DashboardFact.age(now.timeIntervalSince($0)) } ?? "",
                        ]
                    }, note: "No ride is followed now."))
            let notices = report.notices
            sections.append(
                DashboardSection(
                    heading: "Feed check", columns: ["severity", "code", "count", "example"],
                    rows: notices.map { notice in
                        [
                            notice.severity.rawValue, notice.code, "\(notice.count)",
                            notice.samples.first.map { "\($0.file)\($0.line.map { ":\($0)" } ?? ""): \($0.message)" } ?? "",
                        ]
                    }, note: "The feed passed the check without notices."))
            return sections
        }
    }
}
