import Foundation

/// One row of the transactional outbox (`docs/engine.md`, "The transactional outbox and the dispatcher").
public struct OutboxRow: Sendable, Hashable {
    public var id: Int
    public var kind: OutboxKind
    /// The context: always set for a sync row; optional for a message.
    public var contextKey: String?
    /// One recipient, or `nil` for the whole fan-out of the context.
    public var target: OutboxTarget?
    /// A message's idempotency key, e.g. `start:{contextKey}:{deviceToken}`; `nil` for syncs.
    public var idempotencyKey: String?
    /// A message's body as it will be sent; `nil` for syncs (rendered at send time).
    public var payload: [UInt8]?
    /// A message's push headers as JSON; `nil` for syncs.
    public var headers: String?
    public var status: OutboxStatus
    /// Failed tries so far: retries and expired leases.
    public var attempts: Int
    /// When the row may be sent (later than creation for a retry with backoff).
    public var dueAt: Date
    /// The dispatcher holding the lease, while `leased` (kept afterwards for diagnosis).
    public var leaseOwner: String?
    /// When the lease runs out; after that another dispatcher reclaims the row.
    public var leaseUntil: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// The last failure, or the dead-letter reason.
    public var lastError: String?

    /// Its push may have reached APNs without the answer being recorded, so it may have arrived
    /// already: taken back after its dispatcher's lease ran out
    /// (``OutboxRepository/claim(owner:now:lease:limit:reclaiming:)``: that dispatcher may have died
    /// after its pushes reached APNs and before it recorded their answers), or retried after a
    /// send that ended without an answer (``mayHaveBeenSentNote``). A retry for a database error
    /// keeps the mark (``lastError(keepingMark:)``).
    public var mayHaveBeenSent: Bool {
        lastError.map { $0.hasPrefix(Self.takenBackNote) || $0.hasPrefix(Self.mayHaveBeenSentNote) } ?? false
    }

    /// Taken back after an expired lease (not after a send without an answer).
    public var wasTakenBack: Bool { lastError?.hasPrefix(Self.takenBackNote) == true }

    /// How the last error of a row taken back after an expired lease begins.
    static let takenBackNote = "lease of "

    /// How the last error begins of a row whose push may have reached APNs otherwise (a send
    /// without an answer), or kept so through a retry.
    public static let mayHaveBeenSentNote = "may have been sent: "

    /// `error` as this row's next last error, marked when the row ``mayHaveBeenSent``: a retry
    /// for something else (a database error while it was prepared) must not lose the mark.
    public func lastError(keepingMark error: String) -> String {
        mayHaveBeenSent && !error.hasPrefix(Self.mayHaveBeenSentNote) ? Self.mayHaveBeenSentNote + error : error
    }

    public init(
        id: Int, kind: OutboxKind, contextKey: String?, target: OutboxTarget?, idempotencyKey: String?,
        payload: [UInt8]?, headers: String?, status: OutboxStatus, attempts: Int, dueAt: Date, leaseOwner: String?,
        leaseUntil: Date?, createdAt: Date, updatedAt: Date, lastError: String?
    ) {
        self.id = id
        self.kind = kind
        self.contextKey = contextKey
        self.target = target
        self.idempotencyKey = idempotencyKey
        self.payload = payload
        self.headers = headers
        self.status = status
        self.attempts = attempts
        self.dueAt = dueAt
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastError = lastError
    }

    /// The columns ``init(row:)`` reads.
    static let columns = """
        id, kind, context_key, target, idempotency_key, payload, headers, status, attempts, due_at, lease_owner, \
        lease_until, created_at, updated_at, last_error
        """

    init(row: Row) throws {
        guard let kind = OutboxKind(rawValue: try row.string("kind")) else {
            throw StoreError(.column, "outbox.kind holds an unknown kind")
        }
        guard let status = OutboxStatus(rawValue: try row.string("status")) else {
            throw StoreError(.column, "outbox.status holds an unknown status")
        }
        var target: OutboxTarget?
        if let text = try row.optionalString("target") {
            guard let parsed = OutboxTarget(rawValue: text) else {
                throw StoreError(.column, "outbox.target holds an unknown target form")
            }
            target = parsed
        }
        self.init(
            id: try row.int("id"), kind: kind, contextKey: try row.optionalString("context_key"), target: target,
            idempotencyKey: try row.optionalString("idempotency_key"), payload: try row.optionalBlob("payload"),
            headers: try row.optionalString("headers"), status: status, attempts: try row.int("attempts"),
            dueAt: try row.date("due_at"), leaseOwner: try row.optionalString("lease_owner"),
            leaseUntil: try row.optionalDate("lease_until"), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), lastError: try row.optionalString("last_error")
        )
    }
}
