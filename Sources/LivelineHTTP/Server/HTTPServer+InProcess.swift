import Dispatch

extension HTTPServer {
    /// Answers `request` without a socket, through what a request read from a connection goes
    /// through: the target checks, the drain (503 once a shutdown began; a shutdown waits for the
    /// requests in flight), the body limit (413), routing, the handler and its errors
    /// (``Responder``), and the access-log line. The path and query are decoded as libmicrohttpd
    /// decodes them (`RequestTarget`), and header values lose the spaces and tabs before them
    /// (libmicrohttpd keeps those after). The server need not be started.
    ///
    /// What only a connection has stays there: the checks on the bytes as sent (431, a missing
    /// `Host`, `Transfer-Encoding`, `Expect`: `HTTPServer+ProtocolErrors.swift`), libmicrohttpd's
    /// own answers and the header fields it adds (`Date`, `Content-Length`, `Connection`),
    /// keep-alive, and event streams: a handler's ``HTTPResponse/Body/eventStream(_:)`` is ended
    /// at once (as when a client goes away) and returned so the caller can tell.
    public func respond(to request: InProcessRequest) -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let target = RequestTarget(request.target)
        // Counted as the wire counts a request from its headers on (see `access`).
        inFlight.add(1, ordering: .sequentiallyConsistent)
        let arrivedWhileDraining = draining.load(ordering: .sequentiallyConsistent)
        if arrivedWhileDraining { inFlight.subtract(1, ordering: .sequentiallyConsistent) }
        var response: HTTPResponse
        if let refusal = responder.targetRefusal(bytes: target.bytes, holdsNUL: target.holdsNUL) {
            response = refusal.response
        } else if request.body.count > configuration.maxBodyBytes {
            // The body's length is known up front, as a `Content-Length` declares it.
            response = responder.payloadTooLarge.response
        } else {
            response = responder.answer(
                method: request.method, path: target.path, body: request.body, bodyTooLarge: false, arrivedWhileDraining: arrivedWhileDraining
            ) {
                let headers = HTTPHeaders(request.headers.map { ($0.name, String($0.value.drop { $0 == " " || $0 == "\t" })) })
                return Responder.Details(headers: headers, query: target.query, clientAddress: request.clientAddress)
            }
        }
        var bytes = 0
        switch response.body {
        case .bytes(let body): bytes = body.count
        case .eventStream(let stream): stream.detach()
        }
        if !arrivedWhileDraining { inFlight.subtract(1, ordering: .relaxed) }
        logAccess(
            method: request.method, path: target.path, status: response.status, bytes: bytes, started: started, byLibrary: false, aborted: false)
        // libmicrohttpd sends no body with the answer to HEAD.
        if request.method == "HEAD", case .bytes = response.body { response.body = .bytes([]) }
        return response
    }
}
