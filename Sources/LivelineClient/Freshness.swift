import Foundation

/// How fresh what the app shows is, from the last successful pull (`docs/sdk.md`): the UI
/// never claims to be live when it is not.
public enum Freshness: Sendable, Hashable, CustomStringConvertible {
    /// Pulled within the live window.
    case live
    /// Last pulled this many whole minutes ago (at least 1).
    case updated(minutesAgo: Int)
    /// Never pulled.
    case never

    /// The freshness at `now` of data last pulled at `lastPull`; within `liveWithin` seconds it is live.
    public static func of(lastPull: Date?, now: Date, liveWithin: TimeInterval = 120) -> Freshness {
        guard let lastPull else { return .never }
        let age = now.timeIntervalSince(lastPull)
        if age < liveWithin { return .live }
        return .updated(minutesAgo: max(1, Int(age / 60)))
    }

    /// `live`, `updated 1 minute ago`, `updated 12 minutes ago`, `not updated yet`.
    public var description: String {
        switch self {
        case .live: "live"
        case .updated(let minutes) where minutes == 1: "updated 1 minute ago"
        case .updated(let minutes) where minutes < 120: "updated \(minutes) minutes ago"
        case .updated(let minutes): "updated \(minutes / 60) hours ago"
        case .never: "not updated yet"
        }
    }
}
