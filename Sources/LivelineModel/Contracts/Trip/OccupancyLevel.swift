/// How full the vehicle is, as the real-time feed reports it (`docs/contracts.md` §3).
public enum OccupancyLevel: String, Codable, Hashable, Sendable, CaseIterable {
    case unknown
    case low
    case medium
    case high
    case full
}
