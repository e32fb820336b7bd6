import Foundation

/// What sends a call of a declared route and decodes its answer: the SDK's `LivelineClient`.
///
/// A feature's model module declares its app's calls as an extension of this protocol next to its
/// routes and bodies (`APICaller+Shopping.swift` in `LivelineShoppingModel`), so an app gets them
/// by linking that module and the SDK, and neither the SDK nor the server's features link more
/// than they use (docs/architecture.md, "Models and the SDK").
public protocol APICaller: Sendable {
    /// Sends `route` with its path `parameters`, `query` and JSON `body` (already encoded with
    /// `APICoding`); returns the answer decoded, or throws the caller's error.
    func call<Response: Decodable>(
        _ route: Route, parameters: [String: String], query: [URLQueryItem], encodedBody: Data?
    ) async throws
        -> Response
}

extension APICaller {
    /// Sends `route` with `body` encoded the way the server decodes it (`APICoding`).
    public func call<Response: Decodable>(
        _ route: Route, parameters: [String: String] = [:], query: [URLQueryItem] = [], body: (some Encodable)? = Optional<Int>.none
    ) async throws -> Response {
        let encoded = try body.map { try APICoding.makeEncoder().encode($0) }
        return try await call(route, parameters: parameters, query: query, encodedBody: encoded)
    }
}
