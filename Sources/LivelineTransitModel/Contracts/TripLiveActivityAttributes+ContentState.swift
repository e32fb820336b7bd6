import Foundation
import LivelineModel

extension TripLiveActivityAttributes {
    /// Where the ride is now (`docs/contracts.md` §3). No key is optional, so synthesized `Codable` is
    /// exactly the wire format.
    ///
    /// `nextStopTime` is a `Date` and travels as Swift's default: a JSON number of seconds since
    /// 2001-01-01 00:00:00 UTC. ISO text fails to decode on the phone; UNIX seconds decode but land
    /// about 31 years late (`docs/devices.md`, "Decoding").
    public struct ContentState: Codable, Hashable, Sendable {
        /// Last stop the vehicle departed from (or the boarding stop before departure).
        public var currentStop: String
        public var nextStop: String
        /// Expected (real-time) arrival at `nextStop`.
        public var nextStopTime: Date
        /// Seconds until `nextStopTime` when the snapshot was built.
        public var remainingTime: TimeInterval
        /// Delay in whole minutes; 0 is on time, negative is early.
        public var delay: Int
        public var occupancy: OccupancyLevel
        public var phase: TripPhase
        /// 0.0 … 1.0 along the rider's segment (boarding stop → destination).
        public var progress: Double

        public init(
            currentStop: String, nextStop: String, nextStopTime: Date, remainingTime: TimeInterval,
            delay: Int, occupancy: OccupancyLevel, phase: TripPhase, progress: Double
        ) {
            self.currentStop = currentStop
            self.nextStop = nextStop
            self.nextStopTime = nextStopTime
            self.remainingTime = remainingTime
            self.delay = delay
            self.occupancy = occupancy
            self.phase = phase
            self.progress = progress
        }
    }
}
