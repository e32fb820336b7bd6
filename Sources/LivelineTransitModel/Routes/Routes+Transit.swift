import LivelineModel

/// The transit routes (`docs/features/transit.md`, bearer token), declared once: the server
/// serves them, the SDK's calls (`APICaller+Transit.swift`) print their paths.
extension Routes {
    public static let transitStops = Route(.get, "/api/transit/stops")
    public static let transitDepartures = Route(.get, "/api/transit/departures")
    public static let startTrip = Route(.post, "/api/trips")
    public static let trip = Route(.get, "/api/trips/{id}")
    public static let endTrip = Route(.delete, "/api/trips/{id}")
    public static let endAllTrips = Route(.post, "/api/trips/end-all")

    /// The transit routes, in documentation order.
    public static let transit: [Route] = [
        transitStops, transitDepartures, startTrip, trip, endTrip, endAllTrips,
    ]
}
