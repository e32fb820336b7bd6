import Foundation
import LivelineModel

/// One HTTP request as a handler sees it: everything has been read, the body is complete.
public struct HTTPRequest: Sendable {
    /// The method as sent (`GET`, `POST`, …).
    public var method: String
    /// The percent-decoded path, without the query string.
    public var path: String
    /// Query parameters (the last value wins when a name repeats).
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Values of the matched route's `{parameters}`.
    public var parameters: [String: String]
    /// The address the connection came from (IPv4 dotted or IPv6), when known.
    public var clientAddress: String?
    /// What the matched route's JSON body holds (``Router/describeBody(of:as:)``): the words of a
    /// refusal of a body that does not decode.
    public var bodyDescription: (any BodyDescription)?

    public init(
        method: String, path: String, query: [String: String] = [:], headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], parameters: [String: String] = [:], clientAddress: String? = nil
    ) {
        self.clientAddress = clientAddress
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.parameters = parameters
    }

    /// The value of a route parameter; a missing one is a programming error reported as 500.
    public func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else {
            throw HTTPError(status: 500, code: "internal", message: "route parameter '\(name)' is not declared")
        }
        return value
    }

    /// Decodes the JSON body as `T`. An empty body, invalid JSON or a wrong field is a 400 that
    /// names the field and what was expected (``refusal(of:)``).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if body.isEmpty {
            throw HTTPError.badRequest("the request needs a JSON body", field: "body")
        }
        // Checked here rather than by `decode(_:fromUntrusted:)`, to say it in this 400's words.
        if JSONNesting.exceeds(JSONNesting.limit, in: body) {
            throw HTTPError.badRequest("the body nests arrays and objects more than \(JSONNesting.limit) deep", field: "body")
        }
        do {
            return try APICoding.makeDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw refusal(of: error)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.badRequest("the body is not valid JSON", field: "body")
        }
    }

    /// The 400 for a body that failed to decode with `error`: the field (`body` for the whole)
    /// and what it must be in the words of ``bodyDescription`` where it has them, else of the
    /// decoded type (``DecodingProblem``) — never Foundation's text — and what was sent instead.
    public func refusal(of error: DecodingError) -> HTTPError {
        let document = try? JSONValue(json: body)
        var problem = DecodingProblem(error, in: document)
        // A number no Int holds, or a string that is no date, fails at the top (Foundation names no
        // key): the documented schema finds it.
        if problem.kind == .unplaced, let document, let path = bodyDescription?.firstUnfitValue(in: document) {
            problem = DecodingProblem(path: path, kind: .invalid, found: DecodingProblem.value(at: path, in: document).map(DecodingProblem.words))
        }
        let message = problem.message(expecting: bodyDescription?.expectation(at: problem.path), document: "the body")
        return .badRequest(message, field: problem.path.isEmpty ? "body" : problem.keyPath)
    }

    /// Decodes the JSON body as `T`, first through `plain`: the body parsed into a ``JSONValue``
    /// (a fast parse) and read by hand, for the request bodies on a hot path. Where `plain` gives
    /// nil (the body is not a plain, well-formed one) it is decoded as ``decode(_:)`` does, with
    /// the same errors.
    public func decode<T: Decodable>(_ type: T.Type, plain: (JSONValue) -> T?) throws -> T {
        if !body.isEmpty, let value = try? JSONValue(json: body), let decoded = plain(value) { return decoded }
        return try decode(type)
    }
}
