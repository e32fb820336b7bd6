import Foundation

/// One decision of a simulated device, with its reason (`docs/devices.md`: "explaining every decision").
public struct DeviceLogEntry: Sendable, Hashable, CustomStringConvertible {
    public enum Verdict: String, Sendable, Hashable {
        /// A push changed what the card shows (or started or ended it).
        case applied
        /// A push was thrown away; `reason` says why (as a phone would, silently).
        case dropped
        /// Something the system or the app did by itself (a token, a pull, the 8-hour end, …).
        case event
    }

    public var at: Date
    public var verdict: Verdict
    /// The context the entry is about, when there is one.
    public var contextKey: String?
    public var message: String

    public var description: String {
        "\(verdict.rawValue)\(contextKey.map { " [\($0)]" } ?? ""): \(message)"
    }
}
