import Foundation
import LivelineModel

/// Transit rides (`docs/features/transit.md`): the calls its app makes. The server follows the
/// ride and pushes the card; the app starts the card itself (`start: "local"`, with the answer's
/// attributes and state, its update token registered under the answer's `contextKey`) or lets the
/// server start it by push-to-start.
extension APICaller {
    /// Stops whose name contains `query`.
    public func transitStops(matching query: String) async throws -> [TransitStop] {
        let answer: TransitStopsResponse = try await call(Routes.transitStops, query: [URLQueryItem(name: "query", value: query)])
        return answer.stops
    }

    /// The next trips leaving `stopID` (after `after`, now when nil), with real time where there is.
    public func transitDepartures(stopID: String, after: Date? = nil) async throws -> TransitDeparturesResponse {
        var query = [URLQueryItem(name: "stop_id", value: stopID)]
        if let after { query.append(URLQueryItem(name: "after", value: String(Int(after.timeIntervalSince1970)))) }
        return try await call(Routes.transitDepartures, query: query)
    }

    /// Starts following a ride; `start` is `local` or `push`.
    @discardableResult
    public func startTrip(_ request: StartTripRequest) async throws -> TripResponse {
        try await call(Routes.startTrip, body: request)
    }

    /// The ride's truth; `unchanged: true` (nothing else) when `sinceRev` is current.
    public func trip(_ id: String, sinceRev: Int? = nil) async throws -> TripResponse {
        let query = sinceRev.map { [URLQueryItem(name: "since_rev", value: String($0))] } ?? []
        return try await call(Routes.trip, parameters: ["id": id], query: query)
    }

    /// The rider ends the card ("Beenden").
    @discardableResult
    public func endTrip(_ id: String) async throws -> TripResponse {
        try await call(Routes.endTrip, parameters: ["id": id])
    }

    /// Ends all of the caller's rides.
    @discardableResult
    public func endAllTrips() async throws -> EndTripsResponse {
        try await call(Routes.endAllTrips, body: Optional<Int>.none)
    }
}
