import Foundation
import LivelineAPI
import LivelineModel

/// Builds the OpenAPI 3.1 document served at `/openapi.json` from the core's documentation
/// (`APIDocumentation`) and the features'.
enum OpenAPIDocument {
    /// `now`: when the document is made (the contracts' dates must be within ten years of it);
    /// `allowInsecureWebPush`: the server's `LIVELINE_WEBPUSH_ALLOW_INSECURE` (it takes more web
    /// push endpoints, and the document says which); `registry`: the contracts a context may be of;
    /// `featureNames`: with the contracts' names, the widget kinds a `widgets` token may serve.
    static func build(
        version: String, features: [APIDocumentationPart] = [], registry: ContractRegistry, now: Date = Date(), allowInsecureWebPush: Bool = false,
        featureNames: [String] = []
    ) -> JSONValue {
        let core = APIDocumentation.schemas(
            allowInsecureWebPush: allowInsecureWebPush, contractNames: registry.names,
            widgetKinds: TokenRegistrationRules.widgetKinds(featureNames: featureNames, contractNames: registry.names))
        let parts = [APIDocumentationPart(routes: APIDocumentation.routes, schemas: core)] + features
        // Request bodies (and what they refer to) take null for a left-out optional field.
        var schemas = parts.reduce(into: [String: JSONValue]()) { schemas, part in schemas.merge(part.schemas) { first, _ in first } }
        var requestNames = Set(parts.flatMap(\.routes).compactMap(\.requestBody))
        var pending = Array(requestNames)
        while let name = pending.popLast() {
            for referenced in references(in: schemas[name] ?? .null) where requestNames.insert(referenced).inserted { pending.append(referenced) }
        }
        for name in requestNames { schemas[name] = schemas[name].map(Schema.nullableOptionals) }
        // Says itself where null is taken (a contract's `rev` may be left out, not null).
        schemas["PutContext"] = ContractDocumentation.putContext(registry: registry, now: now)
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
                "schemas": .object(schemas),
            ],
            "paths": .object(paths.mapValues { .object($0) }),
        ]
    }

    /// The names of the component schemas `schema` refers to.
    static func references(in schema: JSONValue) -> [String] {
        switch schema {
        case .object(let fields):
            if case .string(let target)? = fields["$ref"] { return [String(target.split(separator: "/").last ?? "")] }
            return fields.values.flatMap(references)
        case .array(let items): return items.flatMap(references)
        default: return []
        }
    }

    static func operation(_ doc: RouteDocumentation) -> JSONValue {
        var fields: [String: JSONValue] = [
            "operationId": .string(RouteLink.operationID(doc.route)),
            "summary": .string(doc.summary),
        ]
        switch doc.auth {
        case .none: fields["security"] = []
        case .bearer: fields["security"] = [["bearer": []]]
        case .admin: fields["security"] = [["admin": []]]
        }
        let parameters = doc.path.map { $0.parameter(in: "path") } + doc.query.map { $0.parameter(in: "query") }
        if !parameters.isEmpty { fields["parameters"] = .array(parameters) }
        if let body = doc.requestBody {
            fields["requestBody"] = [
                "required": .bool(doc.bodyRequired),
                "content": ["application/json": ["schema": APIDocumentation.ref(body)]],
            ]
        }
        let content: JSONValue = .object([doc.responseType: ["schema": APIDocumentation.ref(doc.response)]])
        var ok: [String: JSONValue] = ["description": "OK", "content": content]
        if !doc.links.isEmpty {
            ok["links"] = .object(
                Dictionary(
                    uniqueKeysWithValues: doc.links.map { link in
                        var fields: [String: JSONValue] = [
                            "operationId": .string(RouteLink.operationID(link.target)),
                            "parameters": .object(link.parameters.mapValues(JSONValue.string)),
                        ]
                        if let body = link.requestBody { fields["requestBody"] = body }
                        return (link.name, JSONValue.object(fields))
                    }))
        }
        var responses: [String: JSONValue] = ["200": .object(ok)]
        if doc.mayCreate {
            var created = ok
            created["description"] = "Created"
            responses["201"] = .object(created)
        }
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
