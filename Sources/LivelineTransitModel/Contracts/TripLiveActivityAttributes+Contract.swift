import Foundation
import LivelineModel

extension TripLiveActivityAttributes: LiveActivityContract {
    public static let typeName = "TripLiveActivityAttributes"
    public static let version = 1

    public static let schema = ContractSchema(
        attributes: [
            ContractField("tripId", .string, "the timetable's trip id"),
            ContractField("line", .string, "line name as riders know it, e.g. \"RNV 5\""),
            ContractField("destination", .string, "the rider's destination stop name"),
        ],
        contentState: [
            ContractField("currentStop", .string, "last stop departed from (or the boarding stop)"),
            ContractField("nextStop", .string, "next stop"),
            ContractField("nextStopTime", .date, "expected arrival at nextStop; seconds since 2001-01-01 UTC"),
            ContractField("remainingTime", .double, "seconds until nextStopTime when the snapshot was built"),
            ContractField("delay", .int, "delay in whole minutes, may be negative"),
            ContractField(
                "occupancy", .enumeration(name: "OccupancyLevel", cases: OccupancyLevel.allCases.map(\.rawValue)), "how full the vehicle is"),
            ContractField("phase", .enumeration(name: "TripPhase", cases: TripPhase.allCases.map(\.rawValue)), "where the rider is on the trip"),
            ContractField("progress", .double, "0.0 … 1.0 along the rider's segment"),
        ]
    )

    /// Example attributes (`docs/contracts.md` gives the shape only; the values are the Mannheim line 5).
    public static let example = TripLiveActivityAttributes(tripId: "rnv-5-0718", line: "RNV 5", destination: "Bismarckplatz")

    /// Example content state: arriving at 2026-06-18 07:42:00 UTC (803461320 s after 2001-01-01).
    public static let exampleContentState = ContentState(
        currentStop: "Hauptbahnhof", nextStop: "Bismarckplatz",
        nextStopTime: Date(timeIntervalSinceReferenceDate: 803_461_320), remainingTime: 240,
        delay: 2, occupancy: .medium, phase: .inProgress, progress: 0.8
    )

    /// The context key: `trip:{tripId}` (`docs/contracts.md`).
    public static func contextKey(of attributes: TripLiveActivityAttributes, userID: Int, householdID: Int) -> String? {
        "trip:\(attributes.tripId)"
    }
}
