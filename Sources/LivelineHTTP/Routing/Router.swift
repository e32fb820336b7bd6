import LivelineModel

/// Maps a request's method and path to a handler, using the routes declared in the shared model.
///
/// A path that matches no route is a 404; a path that matches a route under another method is a
/// 405 with an `Allow` header.
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse

    /// The outcome of looking a request up.
    public enum Resolution: Sendable {
        case matched(Handler, parameters: [String: String])
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private var entries: [(route: Route, handler: Handler)] = []
    /// Routes without parameters, by "METHOD path", for a lookup without scanning.
    /// Routes without parameters, by path, then method: found without building a key string.
    private var literal: [String: [String: Handler]] = [:]

    /// Maps what a handler throws (other than an ``HTTPError``) to an answer; nil leaves it a 500.
    public var mapError: @Sendable (any Error) -> HTTPError? = { _ in nil }

    public init() {}

    /// Adds a handler for `route`. Adding the same route twice is a programming error.
    public mutating func add(_ route: Route, _ handler: @escaping Handler) {
        precondition(!entries.contains { $0.route == route }, "route \(route) is added twice")
        entries.append((route, handler))
        if route.parameterNames.isEmpty {
            literal[route.path(), default: [:]][route.method.rawValue] = handler
        }
    }

    /// Every route served, in the order added.
    public var routes: [Route] { entries.map(\.route) }

    public func resolve(method: String, path: String) -> Resolution {
        if let methods = literal[path] {
            if let handler = methods[method] { return .matched(handler, parameters: [:]) }
            // A path some route names literally is that route's resource: a route with a parameter
            // there (`/api/trips/{id}` for `/api/trips/end-all`) does not claim it.
            return .methodNotAllowed(allowed: entries.map(\.route).filter { $0.parameterNames.isEmpty && $0.path() == path }.map(\.method.rawValue))
        }
        let segments = Route.split(path: path)
        var allowed: [String] = []
        for (route, handler) in entries where route.segments.count == segments.count {
            guard let parameters = route.match(segments: segments) else { continue }
            if route.method.rawValue == method {
                return .matched(handler, parameters: parameters)
            }
            allowed.append(route.method.rawValue)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }
}
