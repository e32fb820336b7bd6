import LivelineAPI
import LivelineModel

/// Builds the OpenAPI 3.1 document served at `/openapi.json` from the core's documentation
/// (`APIDocumentation`) and the features'.
enum OpenAPIDocument {
    static func build(version: String, features: [APIDocumentationPart] = []) -> JSONValue {
        let parts = [APIDocumentationPart(routes: APIDocumentation.routes, schemas: APIDocumentation.schemas)] + features
        var paths: [String: [String: JSONValue]] = [:]
        for doc in parts.flatMap(\.routes) {
            paths[doc.route.template, default: [:]][doc.route.method.rawValue.lowercased()] = Self.operation(doc)
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Liveline",
                "version": .string(version),
                "description": "Backend for iOS Live Activities. Errors are always {\"error\": {\"code\", \"message\", \"field\"?}}.",
            ],
            "components": [
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer", "description": "a user's device-session token (`liveline users add`)"],
                    "admin": ["type": "http", "scheme": "bearer", "description": "the admin key (LIVELINE_ADMIN_KEY)"],
                ],
                "schemas": .object(parts.reduce(into: [:]) { schemas, part in schemas.merge(part.schemas) { first, _ in first } }),
            ],
            "paths": .object(paths.mapValues { .object($0) }),
        ]
    }

    static func operation(_ doc: RouteDocumentation) -> JSONValue {
        var fields: [String: JSONValue] = [
            "operationId": .string(
                doc.route.method.rawValue.lowercased()
                    + doc.route.template
                    .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()),
            "summary": .string(doc.summary),
        ]
        switch doc.auth {
        case .none: fields["security"] = []
        case .bearer: fields["security"] = [["bearer": []]]
        case .admin: fields["security"] = [["admin": []]]
        }
        var parameters: [JSONValue] = doc.route.parameterNames.map { name in
            ["name": .string(name), "in": "path", "required": true, "schema": ["type": "string"]]
        }
        parameters += doc.query.map { name, description in
            ["name": .string(name), "in": "query", "required": false, "description": .string(description), "schema": ["type": "string"]]
        }
        if !parameters.isEmpty { fields["parameters"] = .array(parameters) }
        if let body = doc.requestBody {
            fields["requestBody"] = [
                "required": true,
                "content": ["application/json": ["schema": APIDocumentation.ref(body)]],
            ]
        }
        let content: JSONValue = .object([doc.responseType: ["schema": APIDocumentation.ref(doc.response)]])
        var responses: [String: JSONValue] = ["200": ["description": "OK", "content": content]]
        if doc.mayCreate { responses["201"] = ["description": "Created", "content": content] }
        var errors = doc.errors
        if doc.auth != .none { errors += [401, 429] }
        if doc.requestBody != nil { errors += [413, 415] }
        for status in Set(errors).sorted() {
            responses[String(status)] = [
                "description": .string(Self.reason(status)),
                "content": ["application/json": ["schema": APIDocumentation.ref("Error")]],
            ]
        }
        fields["responses"] = .object(responses)
        return .object(fields)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "bad input; `field` names the offending field"
        case 401: "missing or invalid credentials"
        case 403: "not allowed for this caller"
        case 404: "not found (or not in the caller's household)"
        case 409: "conflict"
        case 413: "body too large"
        case 415: "body is not JSON"
        case 422: "contract violation; `field` names the key that failed"
        case 429: "too many failed authentications from this address lately (or another limit): retry after `Retry-After` seconds"
        default: "error"
        }
    }
}
