import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

/// One push the dispatcher is about to make for a context, at the priority the budget allows.
struct PlannedPush: Sendable {
    let target: OutboxTarget
    /// The token, for device pushes.
    let token: UpdateTarget?
    let priority: APNSPriority
    /// What it is and why this priority, for the timeline (`update rev 3 · p10: material: …`).
    let note: String
    /// A material change sent at 5 because the activity's hourly budget was used.
    var budgetLimited = false
    /// The APNs environment of a channel push (a token push goes to its token's).
    var channelEnvironment: PushEnvironment? = nil
    /// A channel that keeps the most recent message for devices that are offline: its broadcast
    /// may be stored (a no-storage channel takes only `apns-expiration: 0`; docs/apns.md §1.8).
    var storesMessages = false
}

/// A context's push as the dispatcher sends it: rendered at send time from the current state.
struct RenderedSync: Sendable {
    let contextKey: String
    let rev: Int
    let contractName: String
    let payload: [UInt8]
    /// True when the payload carries the context's pending alert or priority hint (cleared once delivered).
    let carriesHints: Bool
    /// The pending alert the payload carries, as stored (cleared once delivered, even when a
    /// later change moved the hints' revision).
    var sentAlert: String? = nil
    /// The channels' pushes and a one-target row's; a whole fan-out's tokens come in `tokenPages`.
    let pushes: [PlannedPush]
    /// A whole fan-out's tokens, read in pages once the render committed.
    var tokenPages: TokenPages? = nil
    /// The context's channels (one per environment) to delete once this final (`end`) push
    /// reached them.
    let channelsToRetire: [String]
    /// For a whole fan-out: the content state it carries, recorded as the last sent one once
    /// APNs accepted it (materiality and the debounce are judged against it).
    let sentState: String?
    let renderedAt: Date
    /// Why the context's pending alert was left out (it could not be read); logged.
    var unreadableAlert: String? = nil
}

/// What the renderer decided for a sync row.
enum RenderOutcome: Sendable {
    case send(RenderedSync)
    /// A quiet change waits for its debounce: the row is due again at `until`.
    case postpone(until: Date, reason: String)
    /// Nothing to send: the context is gone (a fan-out nobody follows is completed by the claim,
    /// ``OutboxRepository/claimForSending(owner:now:lease:limit:reclaiming:)``).
    case nothing
}
