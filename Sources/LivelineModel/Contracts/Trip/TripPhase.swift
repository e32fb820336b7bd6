/// Where the rider is on the trip (`docs/contracts.md` §3).
public enum TripPhase: String, Codable, Hashable, Sendable, CaseIterable {
    case beforeDeparture
    case inProgress
    case arrived
}
