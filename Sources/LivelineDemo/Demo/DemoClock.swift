import Foundation
import Synchronization

/// The demo's time (docs/operations.md, "The demo"): it starts at ``start`` and runs ``speed`` times as fast
/// as the wall clock, measured on a monotonic clock (a change of the system time does not make it
/// jump). Everything of the demo that reads time reads this clock, so they agree: the server (its
/// engine, the features and the transit tracker, `Assembly.server(_:clock:)`), the simulated
/// iPhones (stale and dismissal dates, the 8-hour end) and the real-time feed written for the tram
/// ride. The APNs sandbox keeps real time: the provider tokens it checks are signed with it.
final class DemoClock: Sendable {
    /// The demo time at the start.
    let start: Date
    /// How many demo seconds pass in a real one, until ``runAtRealTime()``.
    let speed: Double

    private struct Segment {
        var instant: ContinuousClock.Instant
        var date: Date
        var speed: Double

        func date(at instant: ContinuousClock.Instant) -> Date {
            let elapsed = instant - self.instant
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return date.addingTimeInterval(seconds * speed)
        }
    }
    private let segment: Mutex<Segment>

    init(start: Date, speed: Double) {
        self.start = start
        self.speed = speed
        segment = Mutex(Segment(instant: .now, date: start, speed: speed))
    }

    /// The demo time now.
    var now: Date { segment.withLock { $0.date(at: .now) } }

    /// ``now`` as the clock function the server and the devices take.
    var function: @Sendable () -> Date { { [self] in now } }

    /// From now on the clock runs at real time (no jump): at the end the world hardly moves while
    /// the devices are checked against the server.
    func runAtRealTime() {
        segment.withLock { segment in
            let instant = ContinuousClock.now
            segment = Segment(instant: instant, date: segment.date(at: instant), speed: 1)
        }
    }

    /// `seconds` of real time in demo seconds.
    func demoSeconds(_ seconds: TimeInterval) -> TimeInterval { seconds * speed }
}
