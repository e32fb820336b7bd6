import LivelineModel

/// Maps a request's method and path to a handler, using the routes declared in the shared model.
///
/// A path that matches no route is a 404; a path that matches a route under another method is a
/// 405 with an `Allow` header.
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse

    /// The outcome of looking a request up.
    public enum Resolution: Sendable {
        /// The route's handler, its `{parameters}` and what its JSON body holds (when described).
        case matched(Handler, parameters: [String: String], body: (any BodyDescription)?)
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private var entries: [(route: Route, handler: Handler, body: (any BodyDescription)?)] = []
    /// Routes without parameters, by path, then method, as indices into `entries`: found without
    /// building a key string.
    private var literal: [String: [String: Int]] = [:]
    /// Routes whose first two segments are literal (`/api/shopping/{week}`), as indices into
    /// `entries`, by segment count and those two segments: a request's path is matched against
    /// these few instead of every route (this runs on every request).
    private var buckets: [Int: [String: [String: [Int]]]] = [:]
    /// Indices of the routes that are in no bucket (fewer than two segments, or a parameter among
    /// the first two); every lookup of their segment count tries them too.
    private var unbucketed: [Int: [Int]] = [:]

    /// Maps what a handler throws (other than an ``HTTPError``) to an answer; nil leaves it a 500.
    public var mapError: @Sendable (any Error) -> HTTPError? = { _ in nil }

    public init() {}

    /// Adds a handler for `route`. Adding the same route twice is a programming error.
    public mutating func add(_ route: Route, _ handler: @escaping Handler) {
        precondition(!entries.contains { $0.route == route }, "route \(route) is added twice")
        entries.append((route, handler, nil))
        let index = entries.count - 1
        if route.parameterNames.isEmpty {
            literal[route.path(), default: [:]][route.method.rawValue] = index
        }
        // Every route also by its shape: a path written otherwise than the route prints it
        // (`/dashboard/` for `/dashboard`) is found by its segments.
        if route.segments.count >= 2, case .literal(let first) = route.segments[0], case .literal(let second) = route.segments[1] {
            buckets[route.segments.count, default: [:]][first, default: [:]][second, default: []].append(index)
        } else {
            unbucketed[route.segments.count, default: []].append(index)
        }
    }

    /// Every route served, in the order added.
    public var routes: [Route] { entries.map(\.route) }

    /// Says what `route`'s JSON body holds: a body of it that does not decode is refused in these
    /// words (``HTTPRequest/refusal(of:)``). The route must have been added.
    public mutating func describeBody(of route: Route, as description: any BodyDescription) {
        guard let index = entries.firstIndex(where: { $0.route == route }) else { preconditionFailure("route \(route) is not served") }
        entries[index].body = description
    }

    public func resolve(method: String, path: String) -> Resolution {
        if let methods = literal[path] {
            if let index = methods[method] { return .matched(entries[index].handler, parameters: [:], body: entries[index].body) }
            // A path some route names literally is that route's resource: a route with a parameter
            // there (`/api/trips/{id}` for `/api/trips/end-all`) does not claim it.
            return .methodNotAllowed(allowed: entries.map(\.route).filter { $0.parameterNames.isEmpty && $0.path() == path }.map(\.method.rawValue))
        }
        let segments = Route.split(path: path)
        var allowed: [String] = []
        for index in candidates(for: segments) {
            let (route, handler, body) = entries[index]
            guard let parameters = route.match(segments: segments) else { continue }
            if route.method.rawValue == method {
                return .matched(handler, parameters: parameters, body: body)
            }
            allowed.append(route.method.rawValue)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    /// The indices of the routes that may match `segments`, in the order added
    /// (the first route of the request's method that matches answers).
    private func candidates(for segments: [Substring]) -> [Int] {
        let others = unbucketed[segments.count] ?? []
        guard segments.count >= 2, let bucket = buckets[segments.count]?[String(segments[0])]?[String(segments[1])] else { return others }
        return others.isEmpty ? bucket : (bucket + others).sorted()
    }
}
