import Foundation
import LivelinePushWire

/// Notify's third channel (`docs/engine.md`, "Notify"): the client web pushes go through and this
/// server's VAPID identity.
public struct WebPushTransport: Sendable {
    public var sender: any WebPushSender
    public var identity: VAPIDIdentity

    public init(sender: any WebPushSender, identity: VAPIDIdentity) {
        self.sender = sender
        self.identity = identity
    }
}

extension WebPushResponse {
    /// The answer as the engine records every answer (``APNSResult``): the push service's status,
    /// its reason (a JSON body's `reason`, else the body's first line), `Retry-After`, and what it
    /// means (RFC 8030 §5 and Apple's "Sending web push notifications"): 2xx delivered; 404 and
    /// 410 the subscription is gone; 408, 429, 5xx and no answer retried; anything else (400 bad
    /// request, 403 a VAPID token the service refused, 413 too large) not retried.
    var result: APNSResult {
        let outcome: APNSOutcome =
            switch status {
            case 200..<300: .delivered
            case 404, 410: .tokenDead(since: nil)
            case 0, 408, 429, 500..<600: .retry(newConnection: false)
            default: .permanent
            }
        var result = APNSResult(
            status: status, reason: reason.map(APNSReason.init(rawValue:)), transportError: transportError, latency: latency, outcome: outcome)
        result.retryAfter = retryAfter
        return result
    }

    /// The push service's reason, short: `{"reason": …}` (Apple) or `{"message": …}`, else the
    /// first line of the body.
    var reason: String? {
        let text = body.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
            for key in ["reason", "message", "error"] {
                if let value = object[key] as? String, !value.isEmpty { return String(value.prefix(120)) }
            }
        }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        return String(line.prefix(120))
    }
}
