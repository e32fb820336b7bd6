import Foundation

/// The answer to one push (or channel request), as the provider records it.
public struct APNSResult: Sendable, Hashable {
    /// HTTP status; 0 when no answer came (see `transportError`).
    public var status: Int
    public var reason: APNSReason?
    /// 410's `timestamp`: when APNs learnt the token was no longer valid.
    public var timestamp: Date?
    /// The `apns-id` sent and echoed (device pushes).
    public var apnsID: String?
    /// `apns-unique-id` (development environment only): the key of the push in Apple's console.
    public var uniqueID: String?
    /// `apns-request-id` (broadcast and channel requests).
    public var requestID: String?
    /// `apns-channel-id` of a created channel.
    public var channelID: String?
    /// The response body, for channel reads and lists.
    public var body: [UInt8]
    /// Why no answer came, when none did.
    public var transportError: String?
    /// How many times it was sent (1 unless resent after a lost connection or a token rotation).
    public var attempts: Int
    /// From first send to answer.
    public var latency: Duration
    public var outcome: APNSOutcome
    /// The least wait before a retry that the server asked for (HTTP `Retry-After`, seconds).
    /// APNs sends none; a browser's push service may, with 429.
    public var retryAfter: TimeInterval? = nil

    public init(
        status: Int, reason: APNSReason? = nil, timestamp: Date? = nil, apnsID: String? = nil, uniqueID: String? = nil,
        requestID: String? = nil, channelID: String? = nil, body: [UInt8] = [], transportError: String? = nil, attempts: Int = 1,
        latency: Duration = .zero, outcome: APNSOutcome
    ) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.requestID = requestID
        self.channelID = channelID
        self.body = body
        self.transportError = transportError
        self.attempts = attempts
        self.latency = latency
        self.outcome = outcome
    }

    /// `status reason`, e.g. `410 Unregistered`, or the transport error.
    public var summary: String {
        if status == 0 { return "no answer: \(transportError ?? "unknown error")" }
        return reason.map { "\(status) \($0.rawValue)" } ?? String(status)
    }
}
