import Foundation
import LivelineModel

/// Why a call to the Liveline server failed.
public enum LivelineClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error (its `{"error": {code, message, field}}` body).
    case server(status: Int, code: String, message: String, field: String?)
    /// No answer: the network failed (retry later).
    case network(String)
    /// The answer was not what the API promises.
    case unexpectedResponse(String)
    /// The call was refused before sending (e.g. an empty token: a registration never sends null).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .server(let status, let code, let message, let field):
            "\(status) \(code): \(message)" + (field.map { " (field \($0))" } ?? "")
        case .network(let text): "network: \(text)"
        case .unexpectedResponse(let text): "unexpected response: \(text)"
        case .invalidArgument(let text): "invalid argument: \(text)"
        }
    }

    /// Whether trying again later may succeed: the network, or a 5xx / 429.
    public var isTransient: Bool {
        switch self {
        case .network: true
        case .server(let status, _, _, _): status >= 500 || status == 429
        case .unexpectedResponse, .invalidArgument: false
        }
    }
}
