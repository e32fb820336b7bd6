import Foundation
import LivelineModel

/// One tracked transit ride's Live Activity (`docs/contracts.md` §3, source 002).
///
/// Context key: `trip:{trackingId}`.
public struct TripLiveActivityAttributes: Codable, Hashable, Sendable {
    /// The timetable's trip id.
    public var tripId: String
    /// Line name as riders know it, e.g. `"RNV 5"`.
    public var line: String
    /// The rider's destination stop name.
    public var destination: String

    public init(tripId: String, line: String, destination: String) {
        self.tripId = tripId
        self.line = line
        self.destination = destination
    }
}
