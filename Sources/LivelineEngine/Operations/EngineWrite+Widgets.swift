import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

extension EngineWrite {
    /// Enqueues the widget pushes a change of `key` asks for, in this transaction
    /// (`docs/engine.md`, "Widget pushes"): each active `widgets` token of the context's household
    /// whose widget kinds show the context's type gets one `content-changed` push, coalesced and
    /// paced per device.
    ///
    /// - A widget push of the token still waiting to be claimed covers the change: nothing is
    ///   added (the widget reads the newest state when it reloads).
    /// - Else the next one is due at once, or ``WidgetPushes/interval`` after the token's newest
    ///   one, whichever is later: at most one push per device per interval, and a change during
    ///   it goes out in one trailing push.
    /// - The push is an outbox message (durable with the change, sent at least once); a `/v1`
    ///   context (no household) has no widget tokens.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    func enqueueWidgetPushes(for key: String, activityType: String, householdID: HouseholdID) throws {
        let shown = widgets.kinds(showing: activityType)
        for token in try store.tokens.widgetTokens(householdID: householdID, in: sql) where !token.kinds.isDisjoint(with: shown) {
            if let last = token.lastPushAt, try store.outbox.isDue(idempotencyKey: Self.widgetPushKey(token.id, at: last), in: sql) {
                continue
            }
            // In whole milliseconds, as stored (the key read back from the token is the same), and
            // after the last one even with no interval (a key of its own).
            let spacing = max(1, Int64((widgets.interval * 1000).rounded()))
            let last = token.lastPushAt.map { Self.milliseconds($0) + spacing }
            let due = SQLValue.date(milliseconds: max(SQLValue.milliseconds(now), last ?? 0))
            let message = OutboxMessage.widgets(tokenID: token.id, note: "widget push: \(key) changed")
            try store.outbox.enqueueMessage(
                idempotencyKey: Self.widgetPushKey(token.id, at: due), contextKey: key, target: .token(token.id), headers: message.json,
                payload: APNSNotification.widgetsPayload, now: now, dueAt: due, in: sql)
            try store.tokens.setWidgetPushAt(id: token.id, due, in: sql)
        }
    }

    /// The idempotency key of the widget push to the token `id` due at `dueAt`: one push per
    /// token and time (`dueAt` in whole milliseconds).
    static func widgetPushKey(_ id: PushTokenID, at dueAt: Date) -> String {
        "widgets:\(id.rawValue):\(milliseconds(dueAt))"
    }

    /// A stored time (whole milliseconds) as its milliseconds, exactly.
    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
