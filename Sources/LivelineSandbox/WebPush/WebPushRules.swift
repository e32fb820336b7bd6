import Foundation
import LivelineCrypto

/// The checks of one push request, each refusing with the status and reason Apple's push service
/// answers; `WebPushCore.receive` runs them in the order docs/sandbox.md ("Web push service") lists.
///
/// Sources: RFC 8030 §5.2–5.4 (`TTL`, `Urgency`, `Topic`), §7.2 (4096-byte bodies); RFC 8291 §4
/// (`aes128gcm`); RFC 8292 §2–3 (VAPID); Apple: "Sending web push notifications in web apps and
/// browsers" (`docs/apns.md` §1.10).
enum WebPushRules {
    /// The largest body accepted (RFC 8030 §7.2: 4096 bytes; RFC 8291 §4: one record).
    static let maximumBody = 4096
    /// The longest `Topic` (RFC 8030 §5.4).
    static let maximumTopic = 32
    /// The values of `Urgency` (RFC 8030 §5.3).
    static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]

    static func size(_ body: [UInt8]) throws(WebPushRefusal) {
        guard body.count <= maximumBody else {
            throw WebPushRefusal(413, .payloadTooLarge, "the body is \(body.count) bytes; at most \(maximumBody) are accepted")
        }
    }

    /// RFC 8291 §4: the body is in the `aes128gcm` content coding (names compare case-insensitively).
    static func contentEncoding(_ value: String?) throws(WebPushRefusal) {
        guard let value else { throw WebPushRefusal(400, .badWebPushRequest, "no Content-Encoding; Web Push bodies are aes128gcm") }
        guard value.trimmingCharacters(in: .whitespaces).lowercased() == "aes128gcm" else {
            throw WebPushRefusal(400, .badWebPushRequest, "Content-Encoding is \(printable(value)), not aes128gcm (RFC 8291 §4)")
        }
    }

    /// RFC 8030 §5.2: `TTL` is required, in seconds, a non-negative integer.
    static func ttl(_ value: String?) throws(WebPushRefusal) -> Int {
        guard let value else { throw WebPushRefusal(400, .badTTL, "no TTL header (RFC 8030 §5.2 requires one)") }
        guard let seconds = parseTTL(value) else {
            throw WebPushRefusal(400, .badTTL, "TTL \(printable(value)) is not a non-negative integer number of seconds")
        }
        return seconds
    }

    /// `value` as a TTL: ASCII digits only, fitting an `Int`.
    static func parseTTL(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(value)
    }

    /// RFC 8030 §5.3: when present, one of very-low, low, normal, high.
    static func urgency(_ value: String?) throws(WebPushRefusal) {
        guard let value, !urgencies.contains(value) else { return }
        throw WebPushRefusal(400, .badUrgency, "Urgency \(printable(value)) is not very-low, low, normal or high")
    }

    /// RFC 8030 §5.4: when present, 1 to 32 characters of the URL-safe base64 alphabet.
    static func topic(_ value: String?) throws(WebPushRefusal) {
        guard let value else { return }
        let urlSafe = value.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
        }
        guard (1...maximumTopic).contains(value.count), urlSafe else {
            throw WebPushRefusal(400, .badWebPushTopic, "Topic must be 1 to 32 characters of A–Z, a–z, 0–9, - and _")
        }
    }

    /// RFC 8292 §3: `vapid t=…, k=…` whose JWT verifies with `k` for `audience` at `now`.
    static func vapid(_ authorization: String?, audience: String, now: Date) throws(WebPushRefusal) -> VAPIDClaims {
        guard let authorization else {
            throw WebPushRefusal(403, .badJWTToken, "no Authorization header; a push needs vapid t=…, k=… (RFC 8292 §3)")
        }
        do {
            return try VAPID.verify(authorization: authorization, audience: audience, now: now)
        } catch {
            throw WebPushRefusal(403, error.code == .invalidKey ? .badVAPIDPublicKey : .badJWTToken, error.message)
        }
    }

    /// RFC 8291: the body decrypts with the subscription's private key and auth secret.
    static func decrypt(_ body: [UInt8], for subscription: SimulatedSubscription) throws(WebPushRefusal) -> [UInt8] {
        do {
            return try WebPushPayload.decrypt(body, with: subscription.privateKey, authSecret: subscription.authSecret)
        } catch {
            throw WebPushRefusal(400, .badWebPushRequest, "the body does not decrypt with the subscription's keys: \(error.message)")
        }
    }

    /// A header value shortened and quoted for a detail message.
    static func printable(_ value: String) -> String {
        "'" + (value.count > 40 ? value.prefix(40) + "…" : value) + "'"
    }
}
