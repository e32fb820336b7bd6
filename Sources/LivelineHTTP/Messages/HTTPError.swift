import Foundation
import LivelineModel

/// A failure with its HTTP status and the error body of `docs/engine.md`:
/// `{"error": {"code": …, "message": …, "field"?: …}}`. Messages never contain secrets.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?
    /// Extra response headers (e.g. `Allow` on a 405).
    public var headers: [(String, String)]

    public init(status: Int, code: String, message: String, field: String? = nil, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ message: String, field: String? = nil) -> HTTPError {
        HTTPError(status: 400, code: "badRequest", message: message, field: field)
    }
    public static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(status: 401, code: "unauthorized", message: message, headers: [("WWW-Authenticate", "Bearer")])
    }
    public static func forbidden(_ message: String) -> HTTPError {
        HTTPError(status: 403, code: "forbidden", message: message)
    }
    public static func notFound(_ message: String) -> HTTPError {
        HTTPError(status: 404, code: "notFound", message: message)
    }
    public static func conflict(_ message: String) -> HTTPError {
        HTTPError(status: 409, code: "conflict", message: message)
    }
    public static func contractViolation(_ message: String, field: String? = nil) -> HTTPError {
        HTTPError(status: 422, code: "contractViolation", message: message, field: field)
    }
    /// A 503 with `Retry-After` (RFC 9110 §10.2.3): how many seconds the client is to wait
    /// before it sends the request again.
    public static func unavailable(_ message: String, retryAfter seconds: Int = 1) -> HTTPError {
        HTTPError(status: 503, code: "unavailable", message: message, headers: [("Retry-After", String(seconds))])
    }
    static let internalError = HTTPError(status: 500, code: "internal", message: "the server failed to handle the request; it is logged")

    /// The response carrying this error.
    public var response: HTTPResponse {
        let body = ErrorBody(code: code, message: message, field: field)
        let bytes = (try? APICoding.makeEncoder().encode(body)).map { Array($0) } ?? Array(#"{"error":{"code":"internal","message":"?"}}"#.utf8)
        var response = HTTPResponse.jsonBytes(bytes, status: status)
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}
