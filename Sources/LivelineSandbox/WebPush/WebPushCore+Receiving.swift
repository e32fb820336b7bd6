import Foundation
import LivelineCrypto
import LivelineHTTP

extension WebPushCore {
    /// Answers `POST /push/<id>` and records it. The checks, in order (docs/sandbox.md, "Web push
    /// service"): unknown subscription 404; revoked 410; an armed fault; body over 4096 bytes 413;
    /// `Content-Encoding` not `aes128gcm`; `TTL`; `Urgency`; `Topic`; VAPID; decryption. A push
    /// that passes them all is 201 with `Location: /message/<n>`.
    ///
    /// The VAPID claims and the plaintext are recorded whenever they verify and decrypt, even when
    /// an earlier check refused the push, so a test sees what was sent.
    func receive(_ request: HTTPRequest) -> HTTPResponse {
        let id = request.parameters["id"] ?? ""
        let now = self.now
        let headers = request.headers
        let (record, gate) = state.withLock { state -> (WebPushSubscriptionRecord?, WebPushRefusal?) in
            guard let record = state.subscriptions[id] else {
                return (nil, WebPushRefusal(404, .badPath, "no subscription has the ID \(WebPushRules.printable(id))"))
            }
            guard record.active else { return (record, WebPushRefusal(410, .unregistered, "the subscription was revoked (unsubscribed)")) }
            if let fault = state.takeFault(for: id) {
                let detail = "an injected fault (\(fault.status))"
                return (record, WebPushRefusal(fault.status, .ofFault(status: fault.status), detail, retryAfter: fault.retryAfter))
            }
            return (record, nil)
        }

        let authorization = headers["authorization"]
        var claims: VAPIDClaims?
        var vapidRefusal: WebPushRefusal?
        do {
            claims = try WebPushRules.vapid(authorization, audience: origin, now: now)
        } catch {
            vapidRefusal = error
        }
        var plaintext: [UInt8]?
        var decryptRefusal: WebPushRefusal?
        if let record {
            do {
                plaintext = try WebPushRules.decrypt(request.body, for: record.subscription)
            } catch {
                decryptRefusal = error
            }
        }

        var refusal = gate
        if refusal == nil {
            do throws(WebPushRefusal) {
                try WebPushRules.size(request.body)
                try WebPushRules.contentEncoding(headers["content-encoding"])
                _ = try WebPushRules.ttl(headers["ttl"])
                try WebPushRules.urgency(headers["urgency"])
                try WebPushRules.topic(headers["topic"])
                if let vapidRefusal { throw vapidRefusal }
                if let decryptRefusal { throw decryptRefusal }
            } catch {
                refusal = error
            }
        }

        let location = state.withLock { state -> String? in
            var location: String?
            if refusal == nil {
                state.accepted += 1
                location = "/message/\(state.accepted)"
            }
            state.pushes.append(
                ReceivedWebPush(
                    subscriptionID: id, receivedAt: now, status: refusal?.status ?? 201, ttl: headers["ttl"].flatMap(WebPushRules.parseTTL),
                    urgency: headers["urgency"], topic: headers["topic"], body: request.body, plaintext: plaintext, vapid: claims,
                    authorization: authorization, refusal: refusal?.reason.rawValue, detail: refusal?.detail,
                    contentEncoding: headers["content-encoding"], location: location
                ))
            return location
        }
        if let refusal { return refusal.response }
        var answer = HTTPHeaders()
        answer.add("Location", location ?? "")
        return HTTPResponse(status: 201, headers: answer)
    }
}
