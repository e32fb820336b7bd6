import Foundation
import LivelineAPI
import LivelineEngine
import LivelineStore

/// The dashboard's feeds page (`/dashboard/feeds`): the static feed loaded, the real-time feed's
/// age and failures, the rides followed and how many are matched to real-time data, and the feed
/// check's notices from when the feed was loaded.
enum TransitDashboard {
    static func panel(door: EngineDoor, realtime: RealtimeSource, report: GTFSReport, clock: @escaping @Sendable () -> Date) -> DashboardPanel {
        DashboardPanel(slug: "feeds", title: "Feeds") {
            let now = clock()
            var sections: [DashboardSection] = []
            if let feed = try TransitFeedStore(door: door).current() {
                sections.append(
                    DashboardSection(
                        heading: "Static feed (GTFS)",
                        facts: [
                            DashboardFact("source", feed.source), DashboardFact("loaded", age(now.timeIntervalSince(feed.loadedAt))),
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
                    DashboardFact("last fetched", status.fetchedAt.map { age(now.timeIntervalSince($0)) } ?? "not yet"),
                    DashboardFact(
                        "feed made", status.headerTimestamp.map { age(now.timeIntervalSince1970 - Double($0)) } ?? "no header time yet",
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
            let rides = try door.read { read in
                try read.sql.query(
                    """
                    SELECT id, trip_id, line, destination, state, realtime, next_at FROM transit_tracked_trips
                    WHERE ended_at IS NULL ORDER BY created_at DESC LIMIT 50
                    """)
            }
            let matched = try rides.filter { try $0.bool("realtime") }.count
            sections.append(
                DashboardSection(
                    heading: "Rides followed",
                    facts: [DashboardFact("rides", "\(rides.count)"), DashboardFact("matched to real-time data", "\(matched)")],
                    columns: ["ride", "trip", "line", "to", "real-time", "next look"],
                    rows: try rides.map { row in
                        [
                            "trip:\(try row.string("id"))", try row.string("trip_id"), try row.string("line"), try row.string("destination"),
                            try row.bool("realtime") ? "matched" : "timetable",
                            try row.optionalDate("next_at").map { age(now.timeIntervalSince($0)) } ?? "",
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

    /// `4 s ago`, `3 min ago`, `in 2 min`.
    static func age(_ seconds: TimeInterval) -> String {
        let magnitude = abs(seconds)
        let text =
            switch magnitude {
            case ..<60: "\(Int(magnitude)) s"
            case ..<3600: "\(Int(magnitude / 60)) min"
            case ..<86400: "\(Int(magnitude / 3600)) h"
            default: "\(Int(magnitude / 86400)) d"
            }
        return seconds >= 0 ? "\(text) ago" : "in \(text)"
    }
}
