import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// Parcels on their way, each shown as a Live Activity: a feature of this backend, plugged into
/// Liveline through its seam (`docs/architecture.md`, "Adding a feature").
public struct ParcelsFeature: Feature {
    /// `POST /api/parcels/{code}/scan {"stops_away": N}`: the courier's scanner reports a stop.
    public static let scan = Route(.post, "/api/parcels/{code}/scan")
    /// The tracking code in the path, and the body's field: one rule each, for the handler and the document.
    static let code = FieldRule(
        "code", .text(length: 1...64, format: TextFormat(pattern: "^[A-Za-z0-9-]+$", about: "letters, digits and -")), about: "the tracking code")
    static let stopsAway = FieldRule("stops_away", .integer(0...500), about: "stops before the parcel's")

    public init() {}

    public var name: String { "parcels" }
    public var contracts: [any LiveActivityContract.Type] { [ParcelActivityAttributes.self] }
    public var migrations: [Migration] {
        [
            Migration(
                version: 1, name: "parcels: table",
                sql: "CREATE TABLE parcels (code TEXT PRIMARY KEY, household_id BIGINT NOT NULL, stops_away INTEGER NOT NULL)")
        ]
    }

    /// The card's state, from the parcel's row.
    struct Card: SnapshotSource {
        func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
            let code = String(context.key.dropFirst("parcel:".count))
            let stops = try transaction.query("SELECT stops_away FROM parcels WHERE code = $1", [.text(code)]).first?.int("stops_away") ?? 0
            let state = ParcelActivityAttributes.ContentState(
                stopsAway: stops, status: stops == 0 ? "at your door" : "out for delivery", rev: context.rev)
            return try JSONValue(json: JSONEncoder().encode(state))
        }
    }

    struct ScanBody: Decodable {
        var stopsAway: Int
        enum CodingKeys: String, CodingKey { case stopsAway = "stops_away" }
    }

    public func install(into setup: FeatureSetup) throws {
        let door = setup.door
        let type = ParcelActivityAttributes.typeName
        setup.snapshotSource(Card(), for: type)
        setup.lifecycle(ActivityLifecycle(staleAfter: 30 * 60, dismissAfter: 5 * 60), for: type)
        setup.routes { router, context in
            router.add(Self.scan) { request in
                let caller = try context.auth.caller(of: request)
                let code = try Self.code.text(try request.parameter("code"))
                let stops = try Self.stopsAway.integer(try request.decode(ScanBody.self).stopsAway)
                let key = "parcel:\(code)"
                let rev = try door.write { change in
                    // A parcel of another household is not there for this caller.
                    let owner = try change.sql.queryOne("SELECT household_id FROM parcels WHERE code = $1", [.text(code)])
                    if let owner, try owner.int("household_id") != caller.householdID.rawValue {
                        throw HTTPError.notFound("there is no parcel \(code)")
                    }
                    if try change.context(key) == nil {
                        let attributes = String(decoding: try JSONEncoder().encode(ParcelActivityAttributes(code: code)), as: UTF8.self)
                        try change.createContext(key: key, activityType: type, householdID: caller.householdID, attributes: attributes)
                    }
                    try change.sql.execute(
                        "INSERT INTO parcels (code, household_id, stops_away) VALUES ($1, $2, $3) "
                            + "ON CONFLICT (code) DO UPDATE SET stops_away = excluded.stops_away",
                        [.text(code), SQLValue(caller.householdID), .integer(Int64(stops))])
                    return try change.recordChange(key, note: "scanned, \(stops) stops away")
                }
                return .jsonBytes(Array(#"{"rev":\#(rev)}"#.utf8))
            }
        }
        setup.documentation(
            APIDocumentationPart(
                routes: [
                    RouteDocumentation(
                        Self.scan, "A scan of a parcel: how many stops before it is delivered", auth: .bearer, request: "ParcelScan",
                        response: "ParcelScanResult", errors: [400, 404], path: [Self.code], mayCreate: true)
                ],
                schemas: [
                    "ParcelScan": Schema.object(["stops_away": Self.stopsAway.schema], required: ["stops_away"]),
                    "ParcelScanResult": Schema.object(["rev": Schema.integer]),
                ]))
    }
}
