import Foundation
import LivelineModel

/// One attempt to hand a push to APNs, as recorded in the delivery log.
///
/// `docs/engine.md`, "The transactional outbox and the dispatcher": every attempt is recorded with its
/// `apns-id`, status, reason, priority and latency. A token is named by its `push_tokens.id`,
/// never by the device token (tokens are redacted everywhere).
public struct DeliveryAttempt: Sendable, Hashable {
    /// `nil` until recorded; set on every attempt read back.
    public var id: Int?
    /// The outbox row the attempt served.
    public var outboxID: Int?
    public var contextKey: String?
    /// The revision whose snapshot was sent (sync rows).
    public var rev: Int?
    public var targetKind: DeliveryTargetKind
    /// The `push_tokens.id` (as text) or the channel id.
    public var target: String
    /// APNs' `apns-id` (or the one we sent), `nil` when there was none.
    public var apnsID: String?
    /// The HTTP status APNs answered; 0 when there was no answer (connection failure, timeout).
    public var status: Int
    /// APNs' `reason`, e.g. `BadDeviceToken`, `TooManyRequests`.
    public var reason: String?
    /// The `apns-priority` sent: 10 or 5.
    public var priority: Int
    /// From handing the request to the connection to the answer, in milliseconds.
    public var latencyMilliseconds: Double
    public var attemptedAt: Date
    /// Why the attempt went as it did, e.g. `priority 5: budget used`, `dead letter: PayloadTooLarge`.
    public var note: String?
    /// The APNs environment it went to (`nil` on attempts recorded before environments were).
    public var environment: PushEnvironment?

    /// Whether it deleted a broadcast channel through APNs's channel management API rather than
    /// pushed: the only attempt on a channel without a revision (a broadcast sends a sync's
    /// snapshot, whose revision it records).
    public var isChannelDeletion: Bool { targetKind == .channel && rev == nil }

    /// ``isChannelDeletion`` as an SQL condition on a `deliveries` row.
    static let channelDeletionSQL = "(target_kind = 'channel' AND rev IS NULL)"

    public init(
        id: Int? = nil, outboxID: Int?, contextKey: String?, rev: Int?, targetKind: DeliveryTargetKind, target: String,
        apnsID: String?, status: Int, reason: String?, priority: Int, latencyMilliseconds: Double, attemptedAt: Date,
        note: String? = nil, environment: PushEnvironment? = nil
    ) {
        self.id = id
        self.outboxID = outboxID
        self.contextKey = contextKey
        self.rev = rev
        self.targetKind = targetKind
        self.target = target
        self.apnsID = apnsID
        self.status = status
        self.reason = reason
        self.priority = priority
        self.latencyMilliseconds = latencyMilliseconds
        self.attemptedAt = attemptedAt
        self.note = note
        self.environment = environment
    }

    /// The columns ``init(row:)`` reads.
    static let columns = """
        id, outbox_id, context_key, rev, target_kind, target, apns_id, status, reason, priority, latency_ms, \
        attempted_at, note, environment
        """

    init(row: Row) throws {
        guard let targetKind = DeliveryTargetKind(rawValue: try row.string("target_kind")) else {
            throw StoreError(.column, "deliveries.target_kind holds an unknown kind")
        }
        self.init(
            id: try row.int("id"), outboxID: try row.optionalInt("outbox_id"), contextKey: try row.optionalString("context_key"),
            rev: try row.optionalInt("rev"), targetKind: targetKind, target: try row.string("target"),
            apnsID: try row.optionalString("apns_id"), status: try row.int("status"), reason: try row.optionalString("reason"),
            priority: try row.int("priority"), latencyMilliseconds: try row.double("latency_ms"),
            attemptedAt: try row.date("attempted_at"), note: try row.optionalString("note"),
            environment: try row.optionalString("environment").flatMap(PushEnvironment.init(rawValue:))
        )
    }
}
