import Foundation
import LivelineAPI
import LivelineHTTP
import LivelineModel

/// `GET /healthz` and `GET /openapi.json`: no auth, answered from bytes prepared at start.
struct OperationHandlers: Sendable {
    let health: [UInt8]
    let openAPI: [UInt8]

    init(version: String, features: [APIDocumentationPart] = []) throws {
        health = Array(#"{"status":"ok","version":"\#(version)"}"#.utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        openAPI = try Array(encoder.encode(OpenAPIDocument.build(version: version, features: features)))
    }

    func addRoutes(to router: inout Router) {
        router.add(Routes.healthz) { [health] _ in .jsonBytes(health) }
        router.add(Routes.openAPI) { [openAPI] _ in .jsonBytes(openAPI) }
    }
}
