import LivelineHTTP

/// Why a push request is refused: its status, the `reason` of the body, a detail for the record
/// and, for an injected fault, `Retry-After`.
struct WebPushRefusal: Error, Sendable {
    var status: Int
    var reason: WebPushReason
    /// What exactly was wrong (recorded, never sent: Apple's bodies hold the reason only).
    var detail: String
    var retryAfter: Int?

    init(_ status: Int, _ reason: WebPushReason, _ detail: String, retryAfter: Int? = nil) {
        self.status = status
        self.reason = reason
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// `{"reason": …}` with the status, plus `Retry-After` when set.
    var response: HTTPResponse {
        var response = (try? HTTPResponse.json(["reason": reason.rawValue], status: status)) ?? HTTPResponse(status: status)
        if let retryAfter { response.headers.add("Retry-After", String(retryAfter)) }
        return response
    }
}
