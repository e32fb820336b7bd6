import Foundation

/// One stored context: a live thing on the server that one or more Live Activities show.
///
/// `docs/engine.md`, "Contexts, revisions, snapshots": a key (`docs/contracts.md`), an activity type, a
/// lifecycle state, a start time, a hard deadline (start + 8 h, `docs/devices.md`), its broadcast
/// channel if any, and a revision. JSON columns stay text: the store does not decode them.
public struct ContextRecord: Sendable, Hashable {
    /// The context key, e.g. `shopping:1:2026-01-05` (`docs/contracts.md`).
    public var key: String
    /// The `ActivityAttributes` type name, e.g. `DeliveryActivityAttributes`.
    public var activityType: String
    /// The owning household; `nil` for contexts created through the server-to-server `/v1` API.
    public var householdID: HouseholdID?
    public var state: ContextState
    /// The revision: 0 at creation, one more per recorded change; never down, never repeated.
    public var rev: Int
    /// JSON of the static attributes.
    public var attributes: String
    /// JSON of the content state for `/v1` contexts; `nil` for domain contexts, whose snapshot
    /// builders read their own tables.
    public var contentState: String?
    /// JSON of an alert for the next push (a `/v1` hint), pending since revision ``hintRev``.
    public var alert: String?
    /// An APNs priority (5 or 10) asked for the next push (a `/v1` hint); `nil` lets the engine
    /// decide by materiality.
    public var priorityHint: Int?
    /// The revision at which ``alert`` / ``priorityHint`` were set; see
    /// ``ContextRepository/clearHints(key:sentRev:sentAlert:in:)``.
    public var hintRev: Int?
    /// `relevance-score`, sent only when present.
    public var relevanceScore: Double?
    public var startedAt: Date
    /// The hard deadline: ``startedAt`` + 8 h (``ContextRepository/lifetime``).
    public var deadlineAt: Date
    public var endedAt: Date?
    /// The last `aps.timestamp` handed out for this context, UNIX seconds (0 before the first).
    public var lastPushTimestamp: Int
    public var updatedAt: Date
    /// JSON of the content state of the last whole-fan-out push, and when it was rendered:
    /// materiality and debouncing are judged against them.
    public var lastSentState: String?
    public var lastSentAt: Date?

    public init(
        key: String, activityType: String, householdID: HouseholdID?, state: ContextState, rev: Int, attributes: String,
        contentState: String?, alert: String?, priorityHint: Int?, hintRev: Int?, relevanceScore: Double?,
        startedAt: Date, deadlineAt: Date, endedAt: Date?, lastPushTimestamp: Int, updatedAt: Date,
        lastSentState: String? = nil, lastSentAt: Date? = nil
    ) {
        self.key = key
        self.activityType = activityType
        self.householdID = householdID
        self.state = state
        self.rev = rev
        self.attributes = attributes
        self.contentState = contentState
        self.alert = alert
        self.priorityHint = priorityHint
        self.hintRev = hintRev
        self.relevanceScore = relevanceScore
        self.startedAt = startedAt
        self.deadlineAt = deadlineAt
        self.endedAt = endedAt
        self.lastPushTimestamp = lastPushTimestamp
        self.updatedAt = updatedAt
        self.lastSentState = lastSentState
        self.lastSentAt = lastSentAt
    }

    /// The columns ``init(row:)`` reads.
    static let columns = """
        key, activity_type, household_id, state, rev, attributes, content_state, alert, priority_hint, hint_rev, \
        relevance_score, started_at, deadline_at, ended_at, last_push_timestamp, updated_at, last_sent_state, last_sent_at
        """

    init(row: Row) throws {
        guard let state = ContextState(rawValue: try row.string("state")) else {
            throw StoreError(.column, "contexts.state holds an unknown state")
        }
        self.init(
            key: try row.string("key"), activityType: try row.string("activity_type"),
            householdID: try row.optionalInt("household_id").map { HouseholdID($0) }, state: state, rev: try row.int("rev"),
            attributes: try row.string("attributes"), contentState: try row.optionalString("content_state"),
            alert: try row.optionalString("alert"), priorityHint: try row.optionalInt("priority_hint"),
            hintRev: try row.optionalInt("hint_rev"), relevanceScore: try row.optionalDouble("relevance_score"),
            startedAt: try row.date("started_at"),
            deadlineAt: try row.date("deadline_at"), endedAt: try row.optionalDate("ended_at"),
            lastPushTimestamp: try row.int("last_push_timestamp"), updatedAt: try row.date("updated_at"),
            lastSentState: try row.optionalString("last_sent_state"), lastSentAt: try row.optionalDate("last_sent_at")
        )
    }
}
