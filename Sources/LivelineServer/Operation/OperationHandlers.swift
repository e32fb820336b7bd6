import Foundation
import LivelineAPI
import LivelineHTTP
import LivelineModel

/// `GET /healthz` and `GET /openapi.json`: no auth, answered from prepared bytes (the document's
/// made again each UTC day, see ``OpenAPIDocumentCache``).
struct OperationHandlers: Sendable {
    let health: [UInt8]
    let openAPI: OpenAPIDocumentCache

    init(
        version: String, features: [APIDocumentationPart] = [], registry: ContractRegistry, clock: @escaping @Sendable () -> Date = { Date() },
        allowInsecureWebPush: Bool = false, featureNames: [String] = []
    ) throws {
        health = Array(#"{"status":"ok","version":"\#(version)"}"#.utf8)
        openAPI = OpenAPIDocumentCache(
            version: version, features: features, registry: registry, clock: clock, allowInsecureWebPush: allowInsecureWebPush,
            featureNames: featureNames)
        _ = try openAPI.bytes()
    }

    func addRoutes(to router: inout Router) {
        router.add(Routes.healthz) { [health] _ in .jsonBytes(health) }
        router.add(Routes.openAPI) { [openAPI] _ in .jsonBytes(try openAPI.bytes()) }
    }

    /// Describes the body of every documented route that takes one, in its documented schema
    /// (``RequestSchema``): a body that does not decode is refused saying what the document says
    /// the field must be. Called once every route is added.
    func describeBodies(in router: inout Router) {
        let documentation = APIDocumentation.routes + openAPI.features.flatMap(\.routes)
        let schemas: @Sendable () -> [String: JSONValue] = { [openAPI] in (try? openAPI.schemas()) ?? [:] }
        for route in documentation {
            guard let body = route.requestBody else { continue }
            router.describeBody(of: route.route, as: RequestSchema(named: body, schemas: schemas))
        }
    }
}
