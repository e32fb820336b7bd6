import LivelineModel

/// Where the rider is on the trip (`docs/contracts.md` §3).
public enum TripPhase: String, JSONEnum, Hashable, Sendable {
    case beforeDeparture
    case inProgress
    case arrived
}
