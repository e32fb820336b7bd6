import LivelineModel

/// What `/openapi.json` says about one route. Every served route must have one; a test fails
/// when a route is served without being documented.
public struct RouteDocumentation: Sendable {
    public enum Auth: Sendable {
        case none, bearer, admin
    }

    public let route: Route
    public let summary: String
    public let auth: Auth
    /// Schema name of the JSON request body (in `components.schemas`), if any.
    public let requestBody: String?
    /// Schema name of the 2xx response body.
    public let response: String
    /// Error statuses the route may answer besides the ones every route may (401 where auth is
    /// needed, 413, 415).
    public let errors: [Int]
    /// The rules of the path's parameters (every one of the template's, see ``FieldRule``).
    public let path: [FieldRule]
    /// The rules of the query parameters.
    public let query: [FieldRule]
    /// False when an empty body is taken as `{}` (every field of it is optional).
    public let bodyRequired: Bool
    /// The media type of the 2xx response.
    public let responseType: String
    /// True when the route answers 201 (created) as well as 200.
    public let mayCreate: Bool
    /// Links from its 2xx answer to routes that act on what it answered (``RouteLink``).
    public let links: [RouteLink]

    public init(
        _ route: Route, _ summary: String, auth: Auth, request: String? = nil, response: String,
        errors: [Int] = [], path: [FieldRule] = [], query: [FieldRule] = [], bodyRequired: Bool = true,
        responseType: String = "application/json", mayCreate: Bool = false, links: [RouteLink] = []
    ) {
        precondition(
            path.map(\.name) == route.parameterNames, "\(route): the rules of its path parameters must be given, in order")
        self.route = route
        self.summary = summary
        self.auth = auth
        self.requestBody = request
        self.response = response
        self.errors = errors
        self.path = path
        self.query = query
        self.bodyRequired = bodyRequired
        self.responseType = responseType
        self.mayCreate = mayCreate
        self.links = links
    }
}
