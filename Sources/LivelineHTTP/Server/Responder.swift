import LivelineLog

/// What the server answers a request once it has been read, whether it came over a connection
/// (`HTTPServer+Handling.swift`) or in-process (`HTTPServer+InProcess.swift`): one piece of code,
/// so that both paths answer alike.
///
/// In order: the target checks (414 `uriTooLong`, 400 `nulInTarget`; the other protocol checks
/// need the bytes as sent, see `HTTPServer+ProtocolErrors.swift`), 503 during a drain, 413 for a
/// body over `maxBodyBytes`, 404 and 405 from the router, 415 for a body that is not JSON (unless
/// `requiresJSONBodies` is off or a form may be sent there), then the handler, with what it
/// throws mapped by `HTTPError`, the router's `mapError`, else 500 with one line in the error log.
struct Responder: Sendable {
    let router: Router
    let configuration: HTTPServerConfiguration
    /// Where a handler's unexpected failure (a 500) is logged.
    let errorLog: LogSink

    /// What the server reads of a request only when a handler will see it.
    struct Details {
        var headers: HTTPHeaders
        var query: [String: String]
        var clientAddress: String?
    }

    /// The refusal of a request target (path and query as sent) of `bytes` bytes, holding `%00`
    /// when `holdsNUL`; nil when it may go on.
    func targetRefusal(bytes: Int, holdsNUL: Bool) -> HTTPError? {
        if bytes > configuration.maxTargetBytes {
            return Self.refusal(
                414, "uriTooLong", "the request target (path and query) is \(bytes) bytes; at most \(configuration.maxTargetBytes) are accepted")
        }
        if holdsNUL {
            return Self.refusal(400, "nulInTarget", "the request target holds %00 (a NUL character), which no path or query value may hold")
        }
        return nil
    }

    /// A refusal that closes the connection: what follows such a request on it cannot be trusted
    /// to be the next request.
    static func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        HTTPError(status: status, code: code, message: message, headers: [("Connection", "close")])
    }

    /// The answer to a request whose target passed `targetRefusal`: `bodyTooLarge` when more body
    /// arrived than allowed, `arrivedWhileDraining` when its headers came after a shutdown began;
    /// `details` is read only for a request a handler will see.
    func answer(
        method: String, path: String, body: [UInt8], bodyTooLarge: Bool, arrivedWhileDraining: Bool, details: () -> Details
    ) -> HTTPResponse {
        if arrivedWhileDraining {
            var response = HTTPError.unavailable("the server is shutting down; retry shortly").response
            response.headers.add("Connection", "close")
            return response
        }
        if bodyTooLarge { return payloadTooLarge.response }
        // HEAD is GET without the body (the server leaves the body out).
        switch router.resolve(method: method == "HEAD" ? "GET" : method, path: path) {
        case .notFound:
            return HTTPError.notFound("no route \(method) \(path)").response
        case .methodNotAllowed(let allowed):
            return HTTPError(
                status: 405, code: "methodNotAllowed",
                message: "\(method) is not allowed on \(path); allowed: \(allowed.joined(separator: ", "))",
                headers: [("Allow", allowed.joined(separator: ", "))]
            ).response
        case .matched(let handler, let parameters, let bodyDescription):
            let details = details()
            if configuration.requiresJSONBodies, !body.isEmpty, !HTTPServer.isJSON(details.headers["content-type"]),
                !(HTTPServer.isForm(details.headers["content-type"]) && configuration.formPathPrefixes.contains(where: { path.hasPrefix($0) }))
            {
                return HTTPError(
                    status: 415, code: "unsupportedMediaType",
                    message: "the body must be JSON: send Content-Type: application/json"
                ).response
            }
            var request = HTTPRequest(
                method: method, path: path, query: details.query, headers: details.headers,
                body: body, parameters: parameters, clientAddress: details.clientAddress
            )
            request.bodyDescription = bodyDescription
            return run(handler, request)
        }
    }

    /// The handler's answer, or what it threw as an answer.
    private func run(_ handler: Router.Handler, _ request: HTTPRequest) -> HTTPResponse {
        do {
            return try handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch {
            if let mapped = router.mapError(error) { return mapped.response }
            // Error descriptions never hold secrets (tokens, keys); they say what failed.
            var line = JSONLine()
            line.add("level", "error")
            line.add("event", "handlerFailed")
            line.add("method", request.method)
            line.add("path", request.path)
            line.add("errorType", String(describing: type(of: error)))
            line.add("error", String(describing: error))
            errorLog.write(line)
            return HTTPError.internalError.response
        }
    }

    /// 413 `payloadTooLarge`.
    var payloadTooLarge: HTTPError {
        HTTPError(status: 413, code: "payloadTooLarge", message: "the body is larger than \(configuration.maxBodyBytes) bytes")
    }
}
