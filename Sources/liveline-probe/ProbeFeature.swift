import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// Notes on contexts, in two builds: version 1 keeps a note per context; version 2 also records
/// who wrote it, in a column it adds to `contexts` and a table of its own (an expanding
/// migration), which version 1 never reads.
struct ProbeFeature: Feature {
    static let write = Route(.post, "/api/probe/notes")
    static let read = Route(.get, "/api/probe/notes/{key}")
    static let contextKey = CommonFields.contextKey.named("context_key")
    static let note = FieldRule("note", .text(length: 1...200), about: "the note")
    static let author = FieldRule("author", .text(length: 1...64), about: "who wrote it (version 2 keeps it)")

    /// 1 or 2: the schema version of this build's feature.
    let version: Int

    var name: String { "probe" }

    var migrations: [Migration] {
        let first = Migration(
            version: 1, name: "probe: notes",
            sql: "CREATE TABLE probe_notes (context_key TEXT PRIMARY KEY, note TEXT NOT NULL, written_at BIGINT NOT NULL)")
        let second = Migration(
            version: 2, name: "probe: authors", compatibility: .expand,
            sql: """
                ALTER TABLE contexts ADD COLUMN probe_author TEXT;
                CREATE TABLE probe_authors (name TEXT PRIMARY KEY, notes BIGINT NOT NULL);
                """)
        return version >= 2 ? [first, second] : [first]
    }

    struct NoteBody: Decodable {
        var contextKey: String
        var note: String
        var author: String?
        enum CodingKeys: String, CodingKey {
            case contextKey = "context_key"
            case note, author
        }
    }

    func install(into setup: FeatureSetup) throws {
        let door = setup.door
        let version = version
        setup.routes { router, context in
            router.add(Self.write) { request in
                try context.auth.requireAdmin(request)
                let body = try request.decode(NoteBody.self)
                let key = try Self.contextKey.text(body.contextKey)
                let note = try Self.note.text(body.note)
                let author = try body.author.map { try Self.author.text($0) }
                try door.write { change in
                    try change.sql.execute(
                        "INSERT INTO probe_notes (context_key, note, written_at) VALUES ($1, $2, $3) "
                            + "ON CONFLICT (context_key) DO UPDATE SET note = excluded.note, written_at = excluded.written_at",
                        [.text(key), .text(note), SQLValue(change.now)])
                    guard version >= 2, let author else { return }
                    try change.sql.execute("UPDATE contexts SET probe_author = $1 WHERE key = $2", [.text(author), .text(key)])
                    try change.sql.execute(
                        "INSERT INTO probe_authors (name, notes) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET notes = probe_authors.notes + 1",
                        [.text(author)])
                }
                return .jsonBytes(Array(#"{"version":\#(version)}"#.utf8))
            }
            router.add(Self.read) { request in
                try context.auth.requireAdmin(request)
                let key = try CommonFields.contextKey.text(try request.parameter("key"))
                let note = try door.read { read in
                    try read.sql.queryOne("SELECT note FROM probe_notes WHERE context_key = $1", [.text(key)])?.string("note")
                }
                guard let note else { throw HTTPError.notFound("there is no note on \(key)") }
                let body = try JSONSerialization.data(withJSONObject: ["note": note, "version": version])
                return .jsonBytes(Array(body))
            }
        }
        setup.documentation(
            APIDocumentationPart(
                routes: [
                    RouteDocumentation(
                        Self.write, "A note on a context (version 2 also keeps its author)", auth: .admin, request: "ProbeNote",
                        response: "ProbeVersion", errors: [400]),
                    RouteDocumentation(
                        Self.read, "The note on a context", auth: .admin, response: "ProbeVersion", errors: [400, 404],
                        path: [CommonFields.contextKey]),
                ],
                schemas: [
                    "ProbeNote": Schema.object(
                        ["context_key": Self.contextKey.schema, "note": Self.note.schema, "author": Self.author.schema],
                        required: ["context_key", "note"]),
                    "ProbeVersion": Schema.object(["version": Schema.integer, "note": Schema.string]),
                ]))
    }
}
