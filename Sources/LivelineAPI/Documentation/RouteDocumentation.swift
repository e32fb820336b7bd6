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
    /// Query parameters: name and description.
    public let query: [(String, String)]
    /// The media type of the 2xx response.
    public let responseType: String
    /// True when the route answers 201 (created) as well as 200.
    public let mayCreate: Bool

    public init(
        _ route: Route, _ summary: String, auth: Auth, request: String? = nil, response: String,
        errors: [Int] = [], query: [(String, String)] = [], responseType: String = "application/json", mayCreate: Bool = false
    ) {
        self.route = route
        self.summary = summary
        self.auth = auth
        self.requestBody = request
        self.response = response
        self.errors = errors
        self.query = query
        self.responseType = responseType
        self.mayCreate = mayCreate
    }
}
