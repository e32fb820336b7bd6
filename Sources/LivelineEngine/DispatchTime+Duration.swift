import Dispatch

extension DispatchTime {
    /// `duration` from now; negative durations are now, and very long ones a year (no overflow).
    static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .now() }
        let capped = min(seconds, 365 * 24 * 3600)
        return .now() + .nanoseconds(Int(capped) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
