import LivelineModel

/// How full the vehicle is, as the real-time feed reports it (`docs/contracts.md` §3).
public enum OccupancyLevel: String, JSONEnum, Hashable, Sendable {
    case unknown
    case low
    case medium
    case high
    case full
}
