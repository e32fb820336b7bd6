import LivelineEngine
import LivelineHTTP
import LivelineStore

/// The one mapping from what a handler throws to the answer the client gets (the error body of
/// docs/architecture.md, "Errors"). A refusal of the engine says what was wrong and where; a
/// database that stays busy is a 503 the client may retry after a second; a full disk is a 503
/// `storageFull` that changed nothing (docs/reliability.md, "Disk full"; the server logs the disk
/// filling once, not per request); anything else is a 500, logged with its description by the
/// HTTP server (messages never hold secrets).
public enum APIErrors {
    /// The answer to a write refused because the disk holding the database is full: the
    /// transaction was rolled back, so the request may be sent again as it is.
    public static let storageFull = HTTPError(
        status: 503, code: "storageFull",
        message: "the server's disk is full: nothing of this request was changed; send it again once the operator has freed space",
        headers: [("Retry-After", "30")])

    /// The answer to a request that met the database unreachable (a network partition, a server
    /// down; `docs/reliability.md`, "Network faults"): a write whose commit was under way may or
    /// may not have been stored, so the request is to be sent again as it is.
    public static let databaseUnavailable = HTTPError(
        status: 503, code: "databaseUnavailable",
        message: "the database could not be reached: this request may or may not have been stored; send it again in a moment",
        headers: [("Retry-After", "5")])

    /// The HTTP answer for `error`; nil for an unexpected failure (a 500).
    @Sendable public static func map(_ error: any Error) -> HTTPError? {
        switch error {
        case let error as HTTPError:
            return error
        case let error as EngineError:
            switch error.code {
            case .notFound: return .notFound(error.message)
            case .activityTypeChanged, .contextEnded, .conflict: return .conflict(error.message)
            case .payloadRefused: return .contractViolation(error.message, field: error.field)
            case .outOfRange: return HTTPError(status: 422, code: "outOfRange", message: error.message, field: error.field)
            case .contractRefused: return HTTPError(status: 409, code: "contractRefused", message: error.message, field: error.field)
            default: return nil
            }
        case let error as StoreError:
            switch error.code {
            case .busy:
                return .unavailable("the database is busy; retry in a moment")
            case .storageFull: return storageFull
            case .unavailable: return databaseUnavailable
            case .notFound: return .notFound(error.message)
            case .invalidArgument: return .badRequest(error.message)
            default: return nil
            }
        default:
            return nil
        }
    }
}
