import Foundation
import LivelineModel

/// What a handler answers: a status, headers and a complete body or a stream of events.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Server-Sent Events: the connection stays open and receives what the stream is sent.
        case eventStream(EventStream)
    }

    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response encoded with the API's coding rules.
    public static func json(_ value: some Encodable, status: Int = 200) throws -> HTTPResponse {
        let data = try APICoding.makeEncoder().encode(value)
        return .jsonBytes(Array(data), status: status)
    }

    /// Already-encoded JSON.
    public static func jsonBytes(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: .bytes(bytes))
    }

    /// A Server-Sent Events response for `stream`.
    public static func events(_ stream: EventStream) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/event-stream")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: headers, body: .eventStream(stream))
    }
}
