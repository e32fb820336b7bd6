import Foundation
import LivelineModel
import LivelineStore

/// Everything that follows from one claimed row and APNs' answers to its pushes, as a value:
/// computed by ``DispatchPlanner`` without touching the database or the network, then applied by
/// the dispatcher in one write transaction — all of it or, when that transaction fails, none.
///
/// The row's own change comes last and only while this dispatcher still holds the row's lease;
/// everything else is a fact about what APNs answered and is recorded either way.
struct DispatchPlan: Sendable, Hashable {
    /// What becomes of the row itself.
    enum RowChange: Sendable, Hashable {
        /// Done: sent, or nothing to send.
        case complete
        /// Sent again at `at`, one more attempt counted, `error` kept as the last failure.
        case retry(at: Date, error: String)
        /// Due again at `until` without an attempt counted (a quiet change's debounce).
        case postpone(until: Date, reason: String)
        /// Never sent: a dead letter with its reason (the context's timeline shows it).
        case deadLetter(reason: String)
        /// Still this dispatcher's, leased until `until`: a page of a whole fan-out was answered
        /// and its pages after it are still to send.
        case keep(leaseUntil: Date)
    }

    /// One target of a fan-out sent again later, as a one-target sync row due at `dueAt`.
    struct TargetRetry: Sendable, Hashable {
        var contextKey: String
        var target: OutboxTarget
        var dueAt: Date
    }

    /// One target of a fan-out that can never be sent: a dead sync row for it, with the reason.
    struct DeadTarget: Sendable, Hashable {
        var contextKey: String
        var target: OutboxTarget
        var reason: String
    }

    /// A token APNs called dead. With `registeredBefore` (410's timestamp) only a token last
    /// registered before then is marked invalid: a registration after APNs learnt it is newer news.
    struct TokenInvalidation: Sendable, Hashable {
        var tokenID: PushTokenID
        var reason: String
        var registeredBefore: Date?
        /// The answer that said so.
        var apnsID: String?
        var status: Int
        /// Tried first: the token moves to this environment (a default guess APNs refused with
        /// `BadDeviceToken`) and is sent again there; only if it cannot move is it marked invalid.
        var moveTo: PushEnvironment? = nil
        /// What the `tokenInvalidated` event says, when not that APNs no longer knows the token.
        var message: String? = nil
    }

    /// APNs' verdict on a push-to-start: accepted (`sent`) or not (`failed`, with the reason).
    struct StartFinish: Sendable, Hashable {
        var startID: Int
        var accepted: Bool
        var reason: String?
        /// Counted in `/metrics` (`liveline_starts_total`): APNs' verdicts, not starts cancelled before sending.
        var counted: Bool
        /// APNs' own answer (accepted, or refused for good): a fact, recorded whoever holds the
        /// row now. False for this dispatcher's decision (it gave up, the start was cancelled),
        /// which only the row's holder may record.
        var answered = false
        /// How the start is settled: sent or failed as `accepted` says (`finished`), or not sent at
        /// all — `missed` (a scheduled start whose grace period passed), `skipped` (a scheduled
        /// start whose device showed the card already when it was due).
        var settlement = Settlement.finished

        enum Settlement: Sendable, Hashable { case finished, missed, skipped }
    }

    /// A push rendered at `rev` carried the context's alert or priority hint and was accepted: they are cleared.
    struct HintsSent: Sendable, Hashable {
        var contextKey: String
        var rev: Int
        /// The alert the push carried (``ContextRepository/clearHints(key:sentRev:sentAlert:in:)``).
        var alert: String? = nil
    }

    /// A whole fan-out was accepted: its content state is the context's last sent one.
    struct SentState: Sendable, Hashable {
        var contextKey: String
        var contentState: String
        var renderedAt: Date
    }

    /// The end reached the context's own channel: the context lets go of it and its deletion is queued.
    struct ChannelRetirement: Sendable, Hashable {
        var contextKey: String
        var channelID: String
    }

    let rowID: Int
    let contextKey: String?
    /// When the answers came (every timestamp written).
    let at: Date
    var row: RowChange
    /// Logged once the row's change is applied (a dead letter, a retry).
    var rowEvent: EngineEvent?
    /// One per APNs answer.
    var deliveries: [DeliveryAttempt] = []
    var targetRetries: [TargetRetry] = []
    var deadTargets: [DeadTarget] = []
    var invalidTokens: [TokenInvalidation] = []
    var start: StartFinish?
    var hintsSent: HintsSent?
    var sentState: SentState?
    var retiredChannels: [ChannelRetirement] = []
    /// Channels APNs deleted, or no longer had: marked deleted.
    var deletedChannels: [String] = []
    /// Logged once the plan is applied.
    var events: [EngineEvent] = []

    init(rowID: Int, contextKey: String?, at: Date, row: RowChange = .complete) {
        self.rowID = rowID
        self.contextKey = contextKey
        self.at = at
        self.row = row
    }

    /// The row's change alone: what is left to apply when the whole plan never can be.
    var rowOnly: DispatchPlan {
        var plan = DispatchPlan(rowID: rowID, contextKey: contextKey, at: at, row: row)
        plan.rowEvent = rowEvent
        return plan
    }

    /// Rows and targets this plan makes dead letters of.
    var deadLetterCount: Int {
        let row = if case .deadLetter = row { 1 } else { 0 }
        return row + deadTargets.count
    }
}
