import LivelineAPI
import LivelineModel
import LivelineTransitModel

/// What `/openapi.json` says about the transit routes and their bodies.
enum TransitDocumentation {
    private static let string = Schema.string, integer = Schema.integer, boolean = Schema.boolean, dateTime = Schema.dateTime
    private static let nullableString = Schema.nullableString
    private static func ref(_ name: String) -> JSONValue { Schema.ref(name) }
    private static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String]? = nil) -> JSONValue {
        Schema.object(properties, required: required)
    }

    static let id = CommonFields.publicID(prefix: TripTracker.idPrefix, about: "a ride's id")
    static let query = FieldRule("query", .text(length: 1...100, nonBlank: true), about: "part of a stop's name", required: true)
    static let stopID = FieldRule("stop_id", .text(length: 1...200), about: "the stop's id (GET /api/transit/stops)", required: true)
    static let timetableID = FieldRule("trip_id", .text(length: 1...200), about: "an id of the timetable")
    static let start = FieldRule("start", .oneOf(["local", "push"]), about: "who starts the card")
    static let serviceDate = CommonFields.day("service_date", about: "the timetable's day the ride runs on")

    static let part = APIDocumentationPart(routes: routes, schemas: schemas)

    static let routes: [RouteDocumentation] = [
        .init(
            Routes.transitStops, "Stops whose name contains query (case and accents aside), those starting with it first; at most 20",
            auth: .bearer, response: "TransitStops", errors: [400, 503], query: [query]
        ),
        .init(
            Routes.transitDepartures, "The next trips leaving a stop (at most 10 in the 3 hours from after), with their real-time departure",
            auth: .bearer, response: "TransitDepartures", errors: [400, 404, 503],
            query: [stopID, TransitHandlers.after]
        ),
        .init(
            Routes.startTrip,
            "Start following a ride: the stops must be on the trip in that order and it must arrive within 8 hours (else 422); start: local (the app starts the card) or push (push-to-start on the caller's devices, at once or at `at`, before the ride arrives)",
            auth: .bearer, request: "StartTrip", response: "Trip", errors: [400, 404, 422], mayCreate: true,
            links: RouteLink.each([Routes.trip, Routes.endTrip], parameters: ["id": "$response.body#/id"])
        ),
        .init(
            Routes.trip, "The ride's truth: its card's attributes and state; since_rev equal to the current rev: {id, rev, unchanged: true}",
            auth: .bearer, response: "Trip", errors: [400, 404], path: [id], query: [CommonFields.sinceRev]
        ),
        .init(Routes.endTrip, "The rider ends the card (\"Beenden\")", auth: .bearer, response: "Trip", errors: [400, 403, 404], path: [id]),
        .init(Routes.endAllTrips, "End all of the caller's rides", auth: .bearer, response: "EndedTrips"),
    ]

    static let schemas: [String: JSONValue] = [
        "TransitStop": object(
            ["id": string, "name": string, "lat": ["type": ["number", "null"]], "lon": ["type": ["number", "null"]]], required: ["id", "name"]),
        "TransitStops": object(["stops": ["type": "array", "items": ref("TransitStop")]], required: ["stops"]),
        "TransitDepartures": object(
            [
                "stop": ref("TransitStop"),
                "departures": [
                    "type": "array",
                    "items": object(
                        [
                            "tripId": string, "line": string, "headsign": nullableString, "serviceDate": string, "scheduled": dateTime,
                            "expected": dateTime, "delay": Schema.nullableInteger, "realtime": boolean,
                        ], required: ["tripId", "line", "serviceDate", "scheduled", "expected", "realtime"]),
                ],
            ], required: ["stop", "departures"]),
        "StartTrip": object(
            [
                "trip_id": timetableID.schema, "from_stop_id": timetableID.named("from_stop_id").schema,
                "to_stop_id": timetableID.named("to_stop_id").schema, "service_date": serviceDate.schema,
                "start": start.schema, "at": CommonFields.startAt.schema,
            ], required: ["trip_id", "from_stop_id", "to_stop_id"]),
        "Trip": object(
            [
                "id": string, "rev": integer, "unchanged": boolean, "contextKey": string,
                "attributes": ["type": "object", "description": "TripLiveActivityAttributes (tripId: the ride's id)"],
                "timetableTripId": string,
                "state": ["type": "object", "description": "the card's content state (TripLiveActivityAttributes.ContentState)"],
                "realtime": boolean, "serviceDate": string, "ended": boolean, "starts": Schema.startOutcomes,
            ], required: ["id", "rev", "unchanged"]),
        "EndedTrips": object(["ended": ["type": "array", "items": string]], required: ["ended"]),
    ]
}
