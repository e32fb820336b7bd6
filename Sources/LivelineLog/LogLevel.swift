/// How much a log line matters. A ``Logger`` writes the lines at its level and above; `info` is
/// the default of `liveline serve` (`LIVELINE_LOG_LEVEL`).
///
/// - `debug`: every push and its answer, for following one context by hand.
/// - `info`: what changes the system's shape and is normal: a channel created or deleted, a token
///   APNs no longer knows.
/// - `warning`: something did not go as planned and is being handled: a dead letter, a failed
///   start, a recording that is retried, a busy database.
/// - `error`: something is lost or stuck until an operator looks: answers that could not be
///   recorded, rows that could not be claimed.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    case debug
    case info
    case warning
    case error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }
}
