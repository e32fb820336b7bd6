import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

/// What one `notify` call did.
public struct NotifyResult: Sendable, Hashable {
    /// False when the user had a record with this dedupe key already: nothing changed, nothing sent.
    public var created: Bool
    public var notification: NotificationRecord?
    /// Pushes queued, by channel (`alert`, `web-push`).
    public var queued: [String: Int]
}

/// How a notification's web pushes are delivered (RFC 8030 §5.2–5.4).
public struct WebPushOptions: Sendable, Hashable {
    /// `TTL`: how long a push service keeps it for a browser that is offline, seconds.
    public var ttl: Int
    /// `Urgency`: `very-low`, `low`, `normal` or `high`.
    public var urgency: String
    /// `Topic`: a newer push with the same topic replaces one still pending.
    public var topic: String?

    public init(ttl: Int = WebPushMessage.defaultTTL, urgency: String = "normal", topic: String? = nil) {
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }
}

/// One way a notification reaches a user besides the inbox: each enqueues its messages in the
/// inbox record's transaction, so a record never exists without its pushes queued, nor the other
/// way round. The alert push is the first; web push (RFC 8030/8291/8292) is the next one
/// (`docs/engine.md`, "Notify").
protocol NotificationChannel: Sendable {
    /// The channel's name in ``NotifyResult/queued``.
    var name: String { get }
    /// Enqueues the record's pushes; returns how many.
    func enqueue(_ notification: NotificationRecord, options: WebPushOptions, now: Date, in transaction: any SQLTransaction) throws -> Int
}

/// The alert push to each of the user's `alert` tokens, the deep link in the top-level `link`
/// key beside `aps`.
struct AlertPushChannel: NotificationChannel {
    let store: Store
    let configuration: EngineConfiguration
    var name: String { "alert" }

    func enqueue(_ notification: NotificationRecord, options: WebPushOptions, now: Date, in transaction: any SQLTransaction) throws -> Int {
        let alert = AlertPushPayload(
            title: .plain(notification.title), body: notification.body.map(AlertText.plain), sound: "default",
            threadID: "notify", link: notification.link
        )
        let report = PayloadCheck(destination: .device, now: now, registry: ContractRegistry([])).check(alert)  // an alert names no contract
        guard report.isAccepted else {
            // The request's fields: the alert's title and body, its link; anything else is the title's.
            let field = report.errors.first.map { problem in
                problem.keyPath.hasPrefix("aps.alert.body") ? "body" : problem.keyPath.hasPrefix("link") ? "link" : "title"
            }
            throw EngineError(
                .payloadRefused,
                "the alert push would be refused: " + report.errors.prefix(3).map { "\($0.keyPath): \($0.message)" }.joined(separator: "; "),
                field: field
            )
        }
        let payload = Array(try alert.encoded())
        var count = 0
        let tokens = try configuration.environments.flatMap { environment in
            try store.tokens.activeTokens(userID: notification.userID, kind: .alert, environment: environment, in: transaction)
        }
        for token in tokens {
            // The record's id as `apns-collapse-id`: a push sent again (after a crash, at least
            // once) shows as the one notification it is, not twice.
            let message = OutboxMessage.alert(
                tokenID: token.id, push: OutboxMessage.Push(pushType: .alert, priority: .immediate, collapseID: "notify:\(notification.id)"),
                note: "notification \(notification.id) (\(notification.dedupeKey)) to device \(token.deviceID)"
            )
            if try store.outbox.enqueueMessage(
                idempotencyKey: "notify:\(notification.userID):\(notification.dedupeKey):\(token.id)", contextKey: nil, target: .token(token.id),
                headers: message.json, payload: payload, now: now, in: transaction
            ) {
                count += 1
            }
        }
        return count
    }
}

/// A web push to each of the user's browser subscriptions (`web-push` tokens): the JSON a
/// service worker receives (`title`, `body`, `icon`, `link`, `dedupeKey`, `notificationId`),
/// encrypted when sent.
struct WebPushChannel: NotificationChannel {
    let store: Store
    var name: String { "web-push" }

    /// What the service worker gets (docs/operations.md, "Web Push").
    struct Payload: Encodable {
        var title: String
        var body: String?
        var icon: String?
        var link: String?
        var dedupeKey: String
        var notificationId: Int
    }

    func enqueue(_ notification: NotificationRecord, options: WebPushOptions, now: Date, in transaction: any SQLTransaction) throws -> Int {
        let subscriptions = try PushEnvironment.allCases.flatMap { environment in
            try store.tokens.activeTokens(userID: notification.userID, kind: .webPush, environment: environment, in: transaction)
        }
        guard !subscriptions.isEmpty else { return 0 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = Array(
            try encoder.encode(
                Payload(
                    title: notification.title, body: notification.body, icon: notification.icon, link: notification.link,
                    dedupeKey: notification.dedupeKey, notificationId: notification.id)))
        // A payload longer than one record (3993 bytes) is queued all the same: it becomes a dead
        // letter saying so when its row comes up, before anything is encrypted or sent, and
        // the inbox record and the alert pushes are not held back by it.
        var count = 0
        for subscription in subscriptions {
            let message = OutboxMessage.webPush(
                tokenID: subscription.id, delivery: OutboxMessage.WebPushDelivery(ttl: options.ttl, urgency: options.urgency, topic: options.topic),
                note: "notification \(notification.id) (\(notification.dedupeKey)) to browser subscription \(subscription.id)"
            )
            if try store.outbox.enqueueMessage(
                idempotencyKey: "notify:\(notification.userID):\(notification.dedupeKey):\(subscription.id)", contextKey: nil,
                target: .token(subscription.id), headers: message.json, payload: payload, now: now, in: transaction
            ) {
                count += 1
            }
        }
        return count
    }
}

/// `notify(user, title, body, link, icon, dedupeKey)` (`docs/engine.md`, "Notify"): an inbox record
/// and its pushes in one transaction, idempotent by dedupe key per user.
struct Notifier: Sendable {
    let store: Store
    let channels: [any NotificationChannel]

    func notify(
        userID: UserID, title: String, body: String?, link: String?, icon: String?, dedupeKey: String, webPush: WebPushOptions, now: Date
    ) throws -> NotifyResult {
        try store.write { transaction in
            guard
                let record = try store.notifications.create(
                    userID: userID, title: title, body: body, icon: icon, link: link, dedupeKey: dedupeKey, now: now, in: transaction
                )
            else {
                return NotifyResult(created: false, notification: nil, queued: [:])
            }
            var queued: [String: Int] = [:]
            for channel in channels { queued[channel.name] = try channel.enqueue(record, options: webPush, now: now, in: transaction) }
            return NotifyResult(created: true, notification: record, queued: queued)
        }
    }
}
