import LivelineLog
import LivelineStore

/// One thing the engine tells its operator, written as one JSON line by the engine's ``Logger``:
/// what happened, how much it matters, and the ids to find it by — the context key, APNs'
/// `apns-id`, the outbox row, the push token's row id, the channel.
///
/// Never a push token, a bearer token or a key: a token is named by its `push_tokens.id`, as in
/// the delivery log, and every text here is built from ids, APNs' status and reason, and the
/// store's errors (which never carry bound values, see `StoreError`).
struct EngineEvent: Sendable, Hashable {
    /// The events, by name (the line's `event`).
    enum Name: String, Sendable, Hashable {
        /// APNs answered a push (debug).
        case pushAnswered
        /// A push is sent again later: the row, or one target of a fan-out (debug).
        case pushRetried
        /// A row or a fan-out target that can never be sent, with the reason (warning).
        case deadLetter
        /// APNs no longer knows a token: marked invalid, never pushed again (info).
        case tokenInvalidated
        /// APNs said a token is dead, but the app registered it again since: kept (debug).
        case tokenKept
        /// APNs accepted a push-to-start (debug).
        case startSent
        /// A push-to-start refused, given up on, or sent to a token no longer active (warning).
        case startFailed
        /// A push-to-start not sent because its context ended first (info).
        case startCancelled
        /// A scheduled push-to-start not sent: the server could not send it within the grace
        /// period after its time (warning).
        case startMissed
        /// A push-to-start not sent (again) because its device answered it already (info).
        case startAnswered
        /// A start APNs accepted was never answered by an update token: marked suspect (warning).
        case startSuspect
        /// The database was busy or failing: the row is tried again later (warning).
        case databaseBusy
        /// Due rows could not be claimed (error; warning while the database is only busy).
        case claimFailed
        /// The answers to a row could not be recorded; kept and recorded again (warning).
        case recordingFailed
        /// The answers to a row can never be recorded: the row moves on as planned, and each
        /// answer is written here instead (error).
        case recordingAbandoned
        /// The engine stopped with answers it could not record; their rows come back after
        /// their lease (error).
        case recordingUnfinished
        /// A row's lease ran out before its answers were recorded: they are recorded, the row is
        /// another dispatcher's (warning).
        case leaseLost
        /// A context's pending alert could not be read: the update went without it (warning).
        case alertDropped
        /// A token registered without an environment was refused by the default one: it is tried in
        /// the other (info).
        case tokenMoved
        /// A broadcast channel created for a context (info).
        case channelCreated
        /// No channel for a context (APNs refused or did not answer): updates go to each token (warning).
        case channelFallback
        /// The end reached a context's channel: detached, its deletion queued (debug).
        case channelRetired
        /// APNs deleted a channel, or no longer had it (info).
        case channelDeleted
        /// A deletion queued for an orphan channel was dropped: a context uses the channel (info).
        case channelKept
        /// The channels compared with APNs' list: vanished rows marked deleted, orphans queued
        /// for deletion (info; debug when there were none).
        case channelsReconciled
        /// The channels could not be reconciled; tried again later (warning).
        case channelReconcileFailed
        /// A context ended by the engine before its 8-hour deadline (info).
        case contextEndedAtDeadline
        /// Successors of a context's cards were queued before its 8-hour limit (info; `docs/engine.md`, "Renewal").
        case renewalPlanned
        /// APNs accepted a successor's start; its predecessor's end is queued (info).
        case renewalAccepted
        /// APNs refused a successor's start; the predecessor ends at its limit (warning).
        case renewalRefused
        /// A card without a successor was ended at its limit while its context goes on (info).
        case renewalFellBack
        /// A periodic task of the engine failed; it runs again on the next sweep (warning).
        case sweepFailed
        /// A contract version was stored (a file or the API; info).
        case contractAdded
        /// A contract file or version was refused: the file and why (error; the others still load).
        case contractRefused
    }

    var level: LogLevel
    var name: Name
    var contextKey: String?
    var outboxID: Int?
    /// APNs' `apns-id` (device pushes) or `apns-request-id` (broadcasts, channel management).
    var apnsID: String?
    var tokenID: PushTokenID?
    var channelID: String?
    var startID: Int?
    var rev: Int?
    /// The HTTP status APNs answered (0: no answer).
    var status: Int?
    /// APNs' reason, e.g. `Unregistered`.
    var reason: String?
    /// What happened, for a person.
    var message: String

    init(
        _ level: LogLevel, _ name: Name, contextKey: String? = nil, outboxID: Int? = nil, apnsID: String? = nil, tokenID: PushTokenID? = nil,
        channelID: String? = nil, startID: Int? = nil, rev: Int? = nil, status: Int? = nil, reason: String? = nil, message: String
    ) {
        self.level = level
        self.name = name
        self.contextKey = contextKey
        self.outboxID = outboxID
        self.apnsID = apnsID
        self.tokenID = tokenID
        self.channelID = channelID
        self.startID = startID
        self.rev = rev
        self.status = status
        self.reason = reason
        self.message = message
    }

    /// The line's fields after `ts`, `level` and `event`, those without a value left out.
    var fields: [(key: String, value: LogValue)] {
        var fields: [(key: String, value: LogValue)] = []
        if let contextKey { fields.append(("context.key", .string(contextKey))) }
        if let outboxID { fields.append(("outbox.id", .int(outboxID))) }
        if let apnsID { fields.append(("apns.id", .string(apnsID))) }
        if let status { fields.append(("apns.status", .int(status))) }
        if let reason { fields.append(("apns.reason", .string(reason))) }
        if let tokenID { fields.append(("token.id", .int(tokenID.rawValue))) }
        if let channelID { fields.append(("channel.id", .string(channelID))) }
        if let startID { fields.append(("start.id", .int(startID))) }
        if let rev { fields.append(("rev", .int(rev))) }
        fields.append(("message", .string(message)))
        return fields
    }

    /// `level` for an event about `error`, but debug when the error is a full disk: the server
    /// says that once when the disk fills and once when it has room again (`storageFull`,
    /// `storageFreed`; `docs/reliability.md`, "Disk full"), not at every attempt the engine makes
    /// meanwhile.
    static func level(_ level: LogLevel, for error: any Error) -> LogLevel {
        (error as? StoreError)?.code == .storageFull ? .debug : level
    }
}
