import Foundation
import LivelineStore

/// What preparing a claimed row came to: requests to make now, or a row that sends nothing now
/// and why (the planner decides what becomes of it).
enum Preparation: Sendable {
    case send(PreparedRow)
    case unsent(Reason)

    /// Why a claimed row sends nothing now.
    enum Reason: Sendable, Hashable {
        /// Its context is gone, or nobody is registered for it yet (a later change or
        /// registration brings the push).
        case nothingToSend
        /// A quiet change waits for its debounce until `until`.
        case postponed(until: Date, reason: String)
        /// The database was busy or failing while the row was prepared: it is tried again later,
        /// like an unanswered push. `storageFull`: its disk was full (the line is then at debug
        /// level: the server's `storageFull` said it once, `docs/reliability.md`, "Disk full").
        case databaseUnavailable(String, storageFull: Bool = false)
        /// It can never be sent as it is: rendering failed, the payload check refused it, its
        /// headers are unreadable.
        case unsendable(String)
        /// A push-to-start whose context ended (or vanished) before it went out: a start now
        /// would open a card nothing ends.
        case startAfterTheEnd(startID: Int)
        /// A push-to-start its device answered already (its app registered the activity's update
        /// token or reported rendering it): the card is on the lock screen, and a start sent
        /// (again) would open a second one.
        case startAnswered(startID: Int)
        /// A scheduled push-to-start whose time plus the grace period passed before it could be
        /// sent (the server was down): recorded as missed (`why`), not sent.
        case startMissed(startID: Int, why: String)
        /// A scheduled push-to-start due on a device that shows the context's card already (its
        /// app started one meanwhile: an update token or an `active` report of it): skipped, as a
        /// start then would open a second card.
        case startShownAlready(startID: Int)
        /// A push-to-start no longer `queued`: APNs accepted it (an answer recorded after its
        /// row was taken back), or it was retired (failed, skipped). Not sent (again).
        case startSettled(startID: Int, status: StartRecord.Status)
        /// A channel deletion for a channel a context uses: an orphan seen while its row was being
        /// written (``EngineConfiguration/orphanChannelGrace``). Nothing is deleted.
        case channelInUse(channelID: String, contextKey: String)
        /// A push-to-start or alert whose token is no longer active.
        case tokenInactive(startID: Int?, note: String)
        /// A web push whose subscription can never be sent to: its key is no point on P-256
        /// (`why` says so). The subscription ends (marked invalid), and the row is a dead letter.
        case subscriptionUnusable(tokenID: PushTokenID, why: String)
    }
}
