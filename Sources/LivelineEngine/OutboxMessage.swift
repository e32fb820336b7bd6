import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

/// What a message row of the outbox is: a push rendered when it was enqueued — a push-to-start
/// or an alert — or a broadcast channel to delete. Each kind carries exactly what it needs; the
/// row's `payload` column holds the push's body.
///
/// Stored in the row's `headers` column as one flat JSON object with sorted keys, the format every
/// build so far has written (``Stored``): rows enqueued by an older build are read, and a row
/// enqueued by this one can still be sent by an older build during a rollback. A row whose
/// headers do not describe a complete message of a known kind reads as nil.
enum OutboxMessage: Sendable, Hashable {
    /// A push-to-start to the push-to-start token `tokenID`, for the `la_starts` row `startID`,
    /// carrying the context's revision `rev`.
    case start(tokenID: PushTokenID, startID: Int, rev: Int, push: Push, note: String)
    /// An alert push to the `alert` token `tokenID`.
    case alert(tokenID: PushTokenID, push: Push, note: String)
    /// The `end` of one device's activity, to its `la-update` token `tokenID`, while the context
    /// goes on: the predecessor of a renewed card, or a card whose renewal failed, at its limit
    /// (`docs/engine.md`, "Renewal"). Sent even when the token was replaced meanwhile (the
    /// successor registered its own): the card it reaches is still on the lock screen.
    case activityEnd(tokenID: PushTokenID, push: Push, note: String)
    /// The broadcast channel `channelID` to delete through the channel management API of
    /// `environment` (nil: the one its channel row names, else the default one).
    case channelDelete(channelID: String, environment: PushEnvironment? = nil, note: String)
    /// A web push (RFC 8030) to the browser subscription of the `web-push` token `tokenID`. The
    /// row's payload is the plaintext the service worker receives: it is encrypted for the
    /// subscription's keys when sent (RFC 8291), so a retry is encrypted anew.
    case webPush(tokenID: PushTokenID, delivery: WebPushDelivery, note: String)

    /// A WidgetKit push to the `widgets` token `tokenID` (push type `widgets`, the row's payload
    /// `{"aps":{"content-changed":true}}`): stored as an alert of that push type, which every
    /// build sends as it is (`docs/engine.md`, "Widget pushes"). Apple names no priority for it;
    /// it goes at 10, as its sample request without the header does.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    static func widgets(tokenID: PushTokenID, note: String) -> OutboxMessage {
        .alert(tokenID: tokenID, push: Push(pushType: .widgets, priority: APNSPriority(rawValue: 10), expiration: nil, collapseID: nil), note: note)
    }

    /// The APNs headers a start or alert is sent with.
    struct Push: Sendable, Hashable {
        var pushType: APNSPushType
        var priority: APNSPriority
        /// `apns-expiration`, UNIX seconds; nil sends none.
        var expiration: Int?
        var collapseID: String?
    }

    /// The RFC 8030 headers of a web push.
    struct WebPushDelivery: Sendable, Hashable {
        /// `TTL`: how long the push service keeps it for an offline browser, seconds.
        var ttl: Int
        /// `Urgency`: `very-low`, `low`, `normal` or `high`.
        var urgency: String
        /// `Topic`: a pending push with the same topic is replaced.
        var topic: String?
    }

    /// What it is, for the timeline and the log.
    var note: String {
        switch self {
        case .start(_, _, _, _, let note), .alert(_, _, let note), .activityEnd(_, _, let note), .channelDelete(_, _, let note),
            .webPush(_, _, let note):
            note
        }
    }

    /// The token pushed to (starts, alerts and web pushes).
    var tokenID: PushTokenID? {
        switch self {
        case .start(let tokenID, _, _, _, _), .alert(let tokenID, _, _), .activityEnd(let tokenID, _, _), .webPush(let tokenID, _, _): tokenID
        case .channelDelete: nil
        }
    }

    /// The `la_starts` row of a start.
    var startID: Int? {
        if case .start(_, let startID, _, _, _) = self { startID } else { nil }
    }

    /// The headers column's text.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(Stored(self))) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The message in a row's headers column; nil when there is none or it is incomplete.
    static func decode(_ text: String?) -> OutboxMessage? {
        guard let text, let stored = try? JSONDecoder().decode(Stored.self, from: Data(text.utf8)) else { return nil }
        return stored.message
    }

    /// The headers column's JSON: every kind's fields side by side, those a kind lacks left out.
    /// Property names are the JSON keys (`tokenID`, `collapseID`, …), as the first builds wrote them.
    private struct Stored: Codable {
        var kind: String
        /// The token's row id as the number it always was.
        var tokenID: Int?
        var channelID: String?
        var environment: String?
        var pushType: String?
        var priority: Int?
        var expiration: Int?
        var collapseID: String?
        var startID: Int?
        var rev: Int?
        var ttl: Int?
        var urgency: String?
        var topic: String?
        var note: String

        init(_ message: OutboxMessage) {
            note = message.note
            switch message {
            case .start(let tokenID, let startID, let rev, let push, _):
                kind = "start"
                self.tokenID = tokenID.rawValue
                self.startID = startID
                self.rev = rev
                set(push)
            case .alert(let tokenID, let push, _):
                kind = "alert"
                self.tokenID = tokenID.rawValue
                set(push)
            case .activityEnd(let tokenID, let push, _):
                kind = "activity-end"
                self.tokenID = tokenID.rawValue
                set(push)
            case .channelDelete(let channelID, let environment, _):
                kind = "channel-delete"
                self.channelID = channelID
                self.environment = environment?.rawValue
            case .webPush(let tokenID, let delivery, _):
                kind = "web-push"
                self.tokenID = tokenID.rawValue
                ttl = delivery.ttl
                urgency = delivery.urgency
                topic = delivery.topic
            }
        }

        private mutating func set(_ push: Push) {
            pushType = push.pushType.rawValue
            priority = push.priority.rawValue
            expiration = push.expiration
            collapseID = push.collapseID
        }

        /// A push without a push type was an alert, without a priority one at 10 (as the first builds sent them).
        private var push: Push {
            Push(
                pushType: pushType.map(APNSPushType.init(rawValue:)) ?? .alert, priority: APNSPriority(rawValue: priority ?? 10),
                expiration: expiration, collapseID: collapseID
            )
        }

        var message: OutboxMessage? {
            switch kind {
            case "start":
                guard let tokenID, let startID, let rev else { return nil }
                return .start(tokenID: PushTokenID(tokenID), startID: startID, rev: rev, push: push, note: note)
            case "alert":
                guard let tokenID else { return nil }
                return .alert(tokenID: PushTokenID(tokenID), push: push, note: note)
            case "activity-end":
                guard let tokenID else { return nil }
                return .activityEnd(tokenID: PushTokenID(tokenID), push: push, note: note)
            case "web-push":
                guard let tokenID, let ttl, let urgency else { return nil }
                return .webPush(tokenID: PushTokenID(tokenID), delivery: WebPushDelivery(ttl: ttl, urgency: urgency, topic: topic), note: note)
            case "channel-delete":
                guard let channelID else { return nil }
                return .channelDelete(channelID: channelID, environment: environment.flatMap(PushEnvironment.init(rawValue:)), note: note)
            default:
                return nil
            }
        }
    }
}
