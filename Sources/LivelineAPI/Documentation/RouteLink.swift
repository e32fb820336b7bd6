import LivelineModel

/// An OpenAPI link from a route's answer to another route: where the other's parameters come from
/// (runtime expressions such as `$response.body#/id` or `$request.path.key`). Test generators
/// follow them to call routes on what an earlier call made (schemathesis's stateful phase).
public struct RouteLink: Sendable {
    public let name: String
    public let target: Route
    /// Parameter name to runtime expression.
    public let parameters: [String: String]
    /// The target's body, when it comes from the answer too (values may be runtime expressions).
    public let requestBody: JSONValue?

    public init(_ name: String, to target: Route, parameters: [String: String], requestBody: JSONValue? = nil) {
        self.name = name
        self.target = target
        self.parameters = parameters
        self.requestBody = requestBody
    }

    /// The same parameters to each of `targets`, named after them.
    public static func each(_ targets: [Route], parameters: [String: String]) -> [RouteLink] {
        targets.map { RouteLink(operationID($0), to: $0, parameters: parameters) }
    }

    /// The operation id `/openapi.json` gives `route`, e.g. `getApiTripsId`.
    public static func operationID(_ route: Route) -> String {
        route.method.rawValue.lowercased()
            + route.template.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
