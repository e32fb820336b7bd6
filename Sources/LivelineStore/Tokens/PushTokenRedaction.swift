import Foundation
import LivelineModel

/// What a response, a listing or the dashboard shows of a push token: enough to recognise it,
/// never all of it — its first 8 characters, or a browser subscription's push service host (the
/// endpoint's path is the secret part).
public enum PushTokenRedaction {
    public static func redacted(_ token: String, kind: PushTokenKind) -> String {
        if kind == .webPush, let data = token.data(using: .utf8),
            let subscription = try? JSONDecoder().decode(WebPushSubscription.self, fromUntrusted: data),
            let host = URL(string: subscription.endpoint)?.host
        {
            return host + "…"
        }
        return String(token.prefix(8)) + "…"
    }
}
