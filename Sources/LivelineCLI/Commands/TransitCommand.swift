import Foundation
import LivelineTransit

/// `liveline transit`: checks a GTFS feed as the server does before it loads one
/// (`docs/features/transit.md`).
enum TransitCommand: CLICommand {
    static let name = "transit"
    static let summary = "check a GTFS feed the way serve does before loading it"
    static let help = """
        Usage:
          liveline transit check FEED [--today YYYY-MM-DD]

        check   reads FEED (a GTFS .zip, or a folder of its .txt files) and reports what a
                validator would: one line per notice (severity, code, count) and its first
                samples with file and line — missing required files or columns, times that are
                no HH:MM:SS, unknown ids (foreign keys), stop times going backwards, calendars
                that all ended before today. A feed with errors is refused by `serve`; one with
                only warnings loads.

        Options of check:
          --today DAY     the day "expired" is judged against (default: today, UTC)

        Exit codes: 0 no errors (warnings allowed), 1 errors, 2 usage error or unreadable feed.

        Examples:
          liveline transit check gtfs.zip
          liveline transit check ./feed --today 2026-06-18
        """

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let arguments = try Arguments(arguments, options: ["today"], flags: [])
        guard arguments.positionals.first == "check" else {
            throw CLIError(
                arguments.positionals.isEmpty ? "missing subcommand: check FEED" : "unknown subcommand '\(arguments.positionals[0])'; expected check")
        }
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

    private static func counted(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
}
