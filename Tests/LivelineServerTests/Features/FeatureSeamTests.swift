import Foundation
import Liveline
import LivelineAPI
import LivelineCrypto
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import LivelineTransitModel
import Testing

/// A Live Activity type that exists only in this test: a household's notes.
struct NotesActivityAttributes: LiveActivityContract {
    struct ContentState: Codable, Hashable, Sendable {
        var count: Int
        var latest: String
        var rev: Int
    }

    var household: String

    static let typeName = "NotesActivityAttributes"
    static let version = 1
    static let schema = ContractSchema(
        attributes: [ContractField("household", .string, "the household's name")],
        contentState: [
            ContractField("count", .int, "how many notes"), ContractField("latest", .string, "the latest note"),
            ContractField("rev", .int, "the context's revision"),
        ])
    static let example = NotesActivityAttributes(household: "Seam")
    static let exampleContentState = ContentState(count: 1, latest: "Zwiebeln", rev: 1)
}

/// A feature that exists only in this test: a household's notes on a card of its own type. It
/// plugs in through the seam alone — its contract, a migration of its own table, a snapshot
/// source, a route with its documentation, a lifecycle default — and no core file knows it.
struct NotesFeature: Feature {
    static let route = Route(.post, "/api/test-notes")
    static let type = NotesActivityAttributes.typeName

    /// Its lifecycle's stale time (nil: its cards carry no stale date).
    var staleAfter: TimeInterval? = 5 * 60

    var name: String { "notes" }
    var contracts: [any LiveActivityContract.Type] { [NotesActivityAttributes.self] }
    var migrations: [Migration] {
        [
            Migration(
                version: 1, name: "notes: table", sql: "CREATE TABLE test_notes (id {{primaryKey}}, household_id BIGINT NOT NULL, text TEXT NOT NULL)"
            )
        ]
    }

    static func key(householdID: HouseholdID) -> String { "notes:\(householdID)" }

    /// The card: how many notes the household has, and the latest.
    struct Card: SnapshotSource {
        func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
            let rows = try transaction.query("SELECT text FROM test_notes WHERE household_id = $1 ORDER BY id", [SQLValue(context.householdID)])
            let state = NotesActivityAttributes.ContentState(count: rows.count, latest: try rows.last?.string("text") ?? "-", rev: context.rev)
            return try JSONValue(json: JSONEncoder().encode(state))
        }
    }

    func install(into setup: FeatureSetup) throws {
        let door = setup.door
        setup.snapshotSource(Card(), for: Self.type)
        setup.lifecycle(ActivityLifecycle(staleAfter: staleAfter, dismissAfter: 60), for: Self.type)
        setup.routes { router, context in
            router.add(Self.route) { request in
                let caller = try context.auth.caller(of: request)
                struct Body: Decodable { var text: String }
                let text = try request.decode(Body.self).text
                guard !text.isEmpty else { throw HTTPError.badRequest("text must not be empty", field: "text") }
                let key = Self.key(householdID: caller.householdID)
                let rev = try door.write { change in
                    if try change.context(key) == nil {
                        let attributes = String(decoding: try JSONEncoder().encode(NotesActivityAttributes.example), as: UTF8.self)
                        try change.createContext(key: key, activityType: Self.type, householdID: caller.householdID, attributes: attributes)
                    }
                    try change.sql.execute(
                        "INSERT INTO test_notes (household_id, text) VALUES ($1, $2)", [SQLValue(caller.householdID), .text(text)])
                    return try change.recordChange(key, note: "note added")
                }
                return .jsonBytes(Array(#"{"rev":\#(rev)}"#.utf8), status: 201)
            }
        }
        setup.documentation(
            APIDocumentationPart(
                routes: [
                    RouteDocumentation(
                        Self.route, "Add a note to the household's card", auth: .bearer, request: "TestNote", response: "TestNoteResult",
                        errors: [400], mayCreate: true)
                ],
                schemas: ["TestNote": Schema.object(["text": Schema.string]), "TestNoteResult": Schema.object(["rev": Schema.integer])]
            ))
    }
}

@Suite struct FeatureSeamTests {
    /// With its lifecycle's stale date, and with none (nil must not fall back to the engine's 15 minutes).
    @Test(arguments: [5 * 60, nil] as [TimeInterval?])
    func aFeatureOfATestPlugsInThroughTheSeamAndWorksEndToEnd(staleAfter: TimeInterval?) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-seam-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = folder
        configuration.accessLog = "off"
        configuration.minimumPushInterval = 0
        TestLogs.collect(logSink: &configuration.logSink, accessLog: &configuration.accessLog, logLevel: &configuration.logLevel)
        let server = try Assembly.server(configuration, features: [NotesFeature(staleAfter: staleAfter)])
        let (app, sandbox) = (server.app, server.sandbox)
        try app.start()
        TestLogs.recordServerSecrets(adminKey: app.adminKey, dataDirectory: configuration.dataDirectory)
        defer { app.shutdown() }
        let sandboxServer = try #require(sandbox)

        // Its migration ran, recorded under its name.
        #expect(try app.store.database.read { try Migrator.appliedVersions(feature: "notes", $0) } == [1])
        #expect(app.features == ["notes"])

        let bearer = SecureRandom.token(prefix: "ll_")
        let user = try app.store.accounts.createUser(
            household: "Seam", name: "Ada", avatarTint: "azure", emoji: "x", locale: "de", tokenHash: SHA256.hex(bearer), now: Date()
        )
        let key = NotesFeature.key(householdID: user.householdID)
        let token = String(repeating: "5e", count: 32)
        sandboxServer.registerDevice(token: token)
        let connection = try TestHTTPConnection(port: app.port)
        let auth = ["Authorization": "Bearer \(bearer)"]
        let registered = try connection.request(
            "POST", "/api/apns/register", headers: auth,
            json: #"{"kind":"la-update","token":"\#(token)","device_id":"phone","context_key":"\#(key)"}"#
        )
        #expect(registered.status == 200 || registered.status == 201, "\(registered.text)")

        // Its route answers, writes through the engine's door, and the card goes out, built by
        // its snapshot source, with its lifecycle's stale date.
        #expect(try connection.request("POST", NotesFeature.route.template, headers: auth, json: #"{"text":"Zwiebeln"}"#).status == 201)
        let second = try connection.request("POST", NotesFeature.route.template, headers: auth, json: #"{"text":"Knoblauch"}"#)
        #expect(second.status == 201 && second.json?["rev"] as? Int == 2)
        #expect(
            await eventually(timeout: 20) {
                sandboxServer.accepted(token: token).contains { push in
                    let aps = (try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])?["aps"] as? [String: Any]
                    let state = aps?["content-state"] as? [String: Any]
                    return state?["count"] as? Int == 2 && state?["latest"] as? String == "Knoblauch"
                }
            })
        let last = try #require(sandboxServer.accepted(token: token).last)
        let aps = try #require((try JSONSerialization.jsonObject(with: Data(last.payload)) as? [String: Any])?["aps"] as? [String: Any])
        if staleAfter == nil {
            #expect(aps["stale-date"] == nil, "the feature's lifecycle has no stale date")
        } else {
            let stale = try #require(aps["stale-date"] as? Int)
            let timestamp = try #require(aps["timestamp"] as? Int)
            #expect((299...300).contains(stale - timestamp), "the feature's 5-minute stale date")
        }

        // Bad input is the feature's 400; the route is documented in /openapi.json. (A new
        // connection: a loaded run can hold this task past the server's 30 s idle timeout.)
        let later = try TestHTTPConnection(port: app.port)
        #expect(try later.request("POST", NotesFeature.route.template, headers: auth, json: #"{"text":""}"#).errorField == "text")
        let document = try later.request("GET", "/openapi.json")
        let paths = try #require(document.json?["paths"] as? [String: Any])
        #expect(paths[NotesFeature.route.template] != nil)
        #expect(((document.json?["components"] as? [String: Any])?["schemas"] as? [String: Any])?["TestNote"] != nil)

        // Its type is the server's whole registry: /v1 contexts, push-to-start tokens and the
        // document take it, and a built-in type this server was not given is refused.
        let admin = ["Authorization": "Bearer \(app.adminKey)"]
        let notes = #"{"type":"NotesActivityAttributes","attributes":{"household":"Seam"},"contentState":{"count":0,"latest":"-"}}"#
        #expect(try later.request("PUT", "/v1/contexts/notes-api:1", headers: admin, json: notes).status == 201)
        let refused = try later.request("PUT", "/v1/contexts/trip-api:1", headers: admin, json: ContextAPITests.trip(delay: 0))
        #expect(refused.status == 422 && refused.text.contains("known: NotesActivityAttributes"), "\(refused.text)")
        let start = try later.request(
            "POST", "/api/apns/register", headers: auth,
            json:
                #"{"kind":"la-pushToStart","token":"\#(String(repeating: "6f", count: 32))","attributes_type":"NotesActivityAttributes","device_id":"phone"}"#
        )
        #expect(start.status == 200 || start.status == 201, "\(start.text)")
        let variants = (((document.json?["components"] as? [String: Any])?["schemas"] as? [String: Any])?["PutContext"] as? [String: Any])?["oneOf"]
        #expect("\(variants ?? "")".contains("NotesActivityAttributes") && !"\(variants ?? "")".contains("TripLiveActivityAttributes"))
    }

    /// A feature that serves a type it does not list in `contracts` is refused at start (its
    /// pushes would all fail the payload check), as are two features naming one type.
    @Test func aTypeServedButNotListedOrListedTwiceIsRefusedAtStart() throws {
        struct Unlisted: Feature {
            var name: String { "unlisted" }
            var migrations: [Migration] { [] }
            func install(into setup: FeatureSetup) throws { setup.snapshotSource(NotesFeature.Card(), for: NotesActivityAttributes.typeName) }
        }
        struct Twice: Feature {
            var name: String { "twice" }
            var migrations: [Migration] { [] }
            var contracts: [any LiveActivityContract.Type] { [NotesActivityAttributes.self] }
            func install(into setup: FeatureSetup) throws {}
        }
        for (features, expected) in [([Unlisted()], "no feature lists it"), ([NotesFeature(), Twice()], "two features name")]
            as [([any Feature], String)]
        {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-seam-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.dataDirectory = folder
            configuration.databaseURL = try TestServer.databaseURL(of: folder)
            TestLogs.collect(logSink: &configuration.logSink, accessLog: &configuration.accessLog, logLevel: &configuration.logLevel)
            #expect {
                _ = try Assembly.server(configuration, features: features)
            } throws: { error in
                "\(error)".contains(expected) && "\(error)".contains(NotesActivityAttributes.typeName)
            }
        }
    }
}
