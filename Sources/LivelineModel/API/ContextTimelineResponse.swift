import Foundation

/// Answer of `GET /v1/contexts/{key}/timeline`: the context's revisions, every delivery attempt
/// and its dead letters, newest first.
public struct ContextTimelineResponse: Codable, Sendable, Hashable {
    public struct Entry: Codable, Sendable, Hashable {
        public enum Kind: String, JSONEnum, Sendable, Hashable {
            /// A change: the revision went up.
            case revision
            /// One push to one target, and APNs' answer.
            case delivery
            /// Something that will never be sent, with the reason.
            case deadLetter
            /// A push-to-start on one device: `status` in `note` (queued, sent, failed, skipped;
            /// suspect when no update token followed), why in `reason`.
            case start
            /// The newest revision a device reported rendering (`rev`), beside what was sent.
            case receipt
            /// A card's renewal before its 8-hour limit on one device: `renewal starting`,
            /// `renewed`, `refused` or `ended` in `note`, why in `reason`.
            case renewal
            /// The app's own activity on one device as it last reported it (`POST /api/la/activity`):
            /// `activity pending until …`, `activity active` or `activity ended` in `note`, with
            /// `· transient` for a transient one.
            case activity
        }

        public var kind: Kind
        public var at: Date
        /// The revision changed to, or the revision the push carried.
        public var rev: Int?
        /// What changed, or which event a push was (`update rev 3`).
        public var note: String?
        /// `token` or `channel` (deliveries and dead letters aimed at one target), `device` (starts, receipts).
        public var targetKind: String?
        /// The token's registry id (never the token), the channel id, or the device id.
        public var target: String?
        /// APNs' HTTP status; 0 when no answer came (connection failure).
        public var status: Int?
        /// APNs' reason, or the transport error, or why a row is a dead letter.
        public var reason: String?
        public var apnsId: String?
        public var priority: Int?
        public var latencyMs: Double?
        /// Sending attempts a dead-letter row had.
        public var attempts: Int?
        /// The APNs environment a delivery went to (none on deliveries recorded before it was).
        public var environment: PushEnvironment?

        public init(
            kind: Kind, at: Date, rev: Int? = nil, note: String? = nil, targetKind: String? = nil, target: String? = nil,
            status: Int? = nil, reason: String? = nil, apnsId: String? = nil, priority: Int? = nil, latencyMs: Double? = nil,
            attempts: Int? = nil, environment: PushEnvironment? = nil
        ) {
            self.kind = kind
            self.at = at
            self.rev = rev
            self.note = note
            self.targetKind = targetKind
            self.target = target
            self.status = status
            self.reason = reason
            self.apnsId = apnsId
            self.priority = priority
            self.latencyMs = latencyMs
            self.attempts = attempts
            self.environment = environment
        }
    }

    public var key: String
    /// The newest revision APNs accepted a push of (to any target); nil before the first.
    public var sentRev: Int?
    /// The newest revision each device reported rendering, by device id.
    public var acknowledged: [String: Int]
    public var entries: [Entry]

    public init(key: String, sentRev: Int? = nil, acknowledged: [String: Int] = [:], entries: [Entry]) {
        self.key = key
        self.sentRev = sentRev
        self.acknowledged = acknowledged
        self.entries = entries
    }
}
