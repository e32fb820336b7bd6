import Foundation
import LivelineAPI
import LivelineHTTP
import LivelineModel

/// `GET /v1/sandbox/accepted` (admin key): what the in-process APNs sandbox accepted, newest
/// first — the server's own APNs for testing when no APNs key is configured. 404 when pushes go to
/// APNs itself.
struct SandboxAcceptedHandler: Sendable {
    let auth: Authenticator
    let record: SandboxRecord?

    struct Answer: Encodable {
        var description: String
        var total: Int
        var kept: Int
        var pushes: [SandboxRecord.Push]
    }

    func addRoutes(to router: inout Router) {
        router.add(Routes.sandboxAccepted) { request in
            try auth.requireAdmin(request)
            guard let record else {
                throw HTTPError.notFound("pushes go to APNs (an APNs key is configured): there is no in-process sandbox whose pushes to show")
            }
            let limit = try CommonFields.limit(1...record.capacity).integerQuery(of: request) ?? 100
            return try .json(Answer(description: record.description, total: record.total, kept: record.kept, pushes: record.newest(limit)))
        }
    }
}
