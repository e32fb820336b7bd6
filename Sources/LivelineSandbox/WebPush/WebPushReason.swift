/// The `reason` of a refused Web Push request, in the words of Apple's push service for Safari
/// (values Apple defines, so a struct: unknown ones stay representable).
///
/// Related Apple documentation: "Sending web push notifications in web apps and browsers"
/// (`docs/apns.md` §1.10). Where Apple names no reason for a status (404, 410, and the 5xx of a
/// fault), the sandbox uses the APNs reason of that status and says so in docs/sandbox.md,
/// "Web push service".
struct WebPushReason: RawRepresentable, Sendable, Hashable {
    var rawValue: String

    init(rawValue: String) { self.rawValue = rawValue }

    /// 400: the request is not a Web Push request Apple can deliver (content coding, encryption).
    static let badWebPushRequest = WebPushReason(rawValue: "BadWebPushRequest")
    /// 400: `TTL` is missing or not a non-negative integer.
    static let badTTL = WebPushReason(rawValue: "BadTtl")
    /// 400: `Urgency` is not one of RFC 8030 §5.3's values.
    static let badUrgency = WebPushReason(rawValue: "BadUrgency")
    /// 400: `Topic` is longer than 32 characters or not of the URL-safe base64 alphabet.
    static let badWebPushTopic = WebPushReason(rawValue: "BadWebPushTopic")
    /// 403: the VAPID JWT is missing, badly signed, for another audience, expired or too long-lived.
    static let badJWTToken = WebPushReason(rawValue: "BadJwtToken")
    /// 403: the VAPID `k` is not a P-256 public key.
    static let badVAPIDPublicKey = WebPushReason(rawValue: "BadVapidPublicKey")
    /// 413: the body is larger than 4096 bytes.
    static let payloadTooLarge = WebPushReason(rawValue: "PayloadTooLarge")
    /// 429: too many requests.
    static let tooManyRequests = WebPushReason(rawValue: "TooManyRequests")
    /// 404 (the sandbox's choice, APNs's reason for 404): no such subscription.
    static let badPath = WebPushReason(rawValue: "BadPath")
    /// 410 (the sandbox's choice, APNs's reason for 410): the subscription was revoked.
    static let unregistered = WebPushReason(rawValue: "Unregistered")
    /// 500 (the sandbox's choice, APNs's reason for 500).
    static let internalServerError = WebPushReason(rawValue: "InternalServerError")
    /// 503 (the sandbox's choice, APNs's reason for 503).
    static let serviceUnavailable = WebPushReason(rawValue: "ServiceUnavailable")

    /// The reason an injected fault of `status` answers with.
    static func ofFault(status: Int) -> WebPushReason {
        switch status {
        case 400: .badWebPushRequest
        case 403: .badJWTToken
        case 404: .badPath
        case 410: .unregistered
        case 413: .payloadTooLarge
        case 429: .tooManyRequests
        case 503: .serviceUnavailable
        default: .internalServerError
        }
    }
}
