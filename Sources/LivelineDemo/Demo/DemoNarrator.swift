import Foundation
import LivelineCLI

/// The demo's narration on standard error: one line per step of a story, each with the demo
/// clock's time in Berlin (the demo feed's time zone) and the story it belongs to.
struct DemoNarrator: Sendable {
    let context: CLIContext
    let clock: DemoClock

    /// `08:03:10  tram      Dennis and Jaqueline take tram 5 …`
    func say(_ story: String, _ text: String) {
        context.printError("\(Self.time(clock.now))  \(story.padding(toLength: 8, withPad: " ", startingAt: 0))  \(text)")
    }

    /// A line without a time (the header, the check at the end).
    func line(_ text: String) { context.printError(text) }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? TimeZone(secondsFromGMT: 3600)!
        return calendar
    }()

    /// `HH:MM:SS` of `date` in Berlin.
    static func time(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// `HH:MM` of `date` in Berlin.
    static func minute(_ date: Date) -> String { String(time(date).prefix(5)) }

    /// `Wed 2026-12-02 05:29` of `date` in Berlin.
    static func day(_ date: Date) -> String {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let weekday = names[((calendar.component(.weekday, from: date)) + 6) % 7]
        return "\(weekday) \(isoDay(date)) \(minute(date))"
    }

    /// `YYYY-MM-DD` of `date` in Berlin.
    static func isoDay(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
