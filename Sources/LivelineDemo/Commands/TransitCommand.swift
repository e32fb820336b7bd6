import Foundation
import LivelineCLI
import LivelineTransit

/// `liveline transit`: checks a GTFS feed as the server does before it loads one
/// (`docs/features/transit.md`).
enum TransitCommand: CLICommand {
    static let name = "transit"
    static let summary = "check a GTFS feed the way serve does before loading it"
    static func help(_ context: CLIContext) -> String {
        """
        Usage:
          liveline transit check FEED [--today YYYY-MM-DD]
          liveline transit replay --gtfs FEED --rt FILE_OR_FOLDER --trip ID --from STOP_ID --to STOP_ID
                                  [--service-date YYYY-MM-DD]

        check   reads FEED (a GTFS .zip, or a folder of its .txt files) and reports what a
                validator would: one line per notice (severity, code, count) and its first
                samples with file and line — missing required files or columns, times that are
                no HH:MM:SS, unknown ids (foreign keys), stop times going backwards, calendars
                that all ended before today. A feed with errors is refused by `serve`; one with
                only warnings loads.

        replay  runs the tracker offline over recorded GTFS-Realtime snapshots (a .pb file, or a
                folder of them, taken in header-timestamp order): the clock starts at the first
                snapshot's header time and moves on by the tracker's cadence, each snapshot taking
                effect at its header timestamp (stale 65 s later). One JSON line per evaluation:
                {"at", "feedTimestamp", "state" (the card's content state as pushed), "push": null
                or {"event", "priority", "why"}}, then {"pushes", "priority10", "arrivedAt"}.
                It pushes nothing.

        Options of check:
          --today DAY     the day "expired" is judged against (default: today, UTC)

        Options of replay:
          --service-date DAY   the trip's service day (default: the first snapshot's day in the
                               agency's time zone)

        Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage error or unreadable feed.

        Examples:
          liveline transit check gtfs.zip
          liveline transit check ./feed --today 2026-06-18
          liveline transit replay --gtfs feed.zip --rt snapshots/ --trip 5-wd-hd-0802 \\
              --from mannheim-hauptbahnhof --to heidelberg-bismarckplatz
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let arguments = try Arguments(arguments, options: ["today", "gtfs", "rt", "trip", "from", "to", "service-date"], flags: [])
        switch arguments.positionals.first {
        case "check": return try check(arguments, context: context)
        case "replay": return try replay(arguments, context: context)
        case nil: throw CLIError("missing subcommand: check FEED or replay …")
        case let other?: throw CLIError("unknown subcommand '\(other)'; expected check or replay")
        }
    }

    static func check(_ arguments: Arguments, context: CLIContext) throws -> Int32 {
        guard arguments.positionals.count == 2 else { throw CLIError("`transit check` takes one FEED") }
        let today: ServiceDay
        if let text = arguments.value("today") {
            guard let day = ServiceDay(text) else { throw CLIError("--today must be a day written YYYY-MM-DD, not '\(text)'") }
            today = day
        } else {
            today = ServiceDay.containing(Date(), in: TimeZone(secondsFromGMT: 0) ?? .current)
        }
        let path = URL(fileURLWithPath: arguments.positionals[1])
        let feed: GTFSFeed
        let report: GTFSReport
        do {
            (feed, report) = try GTFSReader.read(path, today: today)
        } catch let error as GTFSError {
            throw CLIError(error.message)
        }
        context.print(report.description)
        let errors = report.notices.filter { $0.severity == .error }.reduce(0) { $0 + $1.count }
        let warnings = report.notices.filter { $0.severity == .warning }.reduce(0) { $0 + $1.count }
        context.print(
            "\(path.lastPathComponent): \(feed.stops.count) stops, \(feed.routes.count) routes, \(feed.trips.count) trips, "
                + "\(feed.stopTimeCount) stop times; \(counted(errors, "error")), \(counted(warnings, "warning"))"
                + (errors > 0 ? " — serve refuses this feed" : ""))
        return errors > 0 ? 1 : 0
    }

    static func replay(_ arguments: Arguments, context: CLIContext) throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw CLIError("`transit replay` takes its inputs as options, not \(arguments.positionals.dropFirst().joined(separator: " "))")
        }
        func required(_ name: String) throws -> String {
            guard let value = arguments.value(name), !value.isEmpty else { throw CLIError("`transit replay` needs --\(name)") }
            return value
        }
        let gtfs = URL(fileURLWithPath: try required("gtfs"))
        let rt = URL(fileURLWithPath: try required("rt"))
        let trip = try required("trip")
        let from = try required("from")
        let to = try required("to")
        let feed: GTFSFeed
        do {
            let (read, report) = try GTFSReader.read(gtfs)
            guard !report.hasErrors else { throw CLIError("\(gtfs.path) has errors:\n\(report)") }
            feed = read
        } catch let error as GTFSError {
            throw CLIError(error.message)
        }
        let snapshots = try Self.snapshots(rt)
        guard let zone = feed.timeZone else { throw CLIError("\(gtfs.path) names no agency time zone") }
        let serviceDay: ServiceDay
        if let text = arguments.value("service-date") {
            guard let day = ServiceDay(text) else { throw CLIError("--service-date must be a day written YYYY-MM-DD, not '\(text)'") }
            serviceDay = day
        } else {
            let first = snapshots.compactMap(\.header.timestamp).min() ?? 0
            serviceDay = ServiceDay.containing(Date(timeIntervalSince1970: TimeInterval(first)), in: zone)
        }
        let replay: TripReplay
        do {
            replay = try TripReplay.run(feed: feed, snapshots: snapshots, tripID: trip, fromStopID: from, toStopID: to, serviceDay: serviceDay)
        } catch let error as GTFSError {
            throw CLIError(error.message)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for line in replay.lines {
            let state = String(decoding: try encoder.encode(line.state), as: UTF8.self)
            let push =
                line.push.map { push in
                    #"{"event":"\#(push.event)","priority":\#(push.priority),"why":\#(Self.jsonString(push.why))}"#
                } ?? "null"
            let feedTimestamp = line.feedTimestamp.map(String.init) ?? "null"
            context.print(#"{"at":\#(Int(line.at.timeIntervalSince1970)),"feedTimestamp":\#(feedTimestamp),"state":\#(state),"push":\#(push)}"#)
        }
        let arrived = replay.arrivedAt.map { String(Int($0.timeIntervalSince1970)) } ?? "null"
        context.print(#"{"pushes":\#(replay.pushes),"priority10":\#(replay.priority10),"arrivedAt":\#(arrived)}"#)
        return 0
    }

    /// The snapshots of `path`: one `.pb` file, or every `.pb` file of a folder.
    static func snapshots(_ path: URL) throws -> [RealtimeFeed] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else { throw CLIError("there is no \(path.path)") }
        let names = isDirectory.boolValue ? ((try? FileManager.default.contentsOfDirectory(atPath: path.path)) ?? []) : []
        let files = isDirectory.boolValue ? names.filter { $0.hasSuffix(".pb") }.sorted().map { path.appendingPathComponent($0) } : [path]
        guard !files.isEmpty else { throw CLIError("\(path.path) has no .pb snapshots") }
        return try files.map { file in
            guard let data = FileManager.default.contents(atPath: file.path) else { throw CLIError("\(file.path) cannot be read") }
            do {
                return try RealtimeFeed.decode(Array(data), source: file.lastPathComponent)
            } catch {
                throw CLIError("\(error)")
            }
        }
    }

    static func jsonString(_ text: String) -> String { String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self) }

    private static func counted(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
}
