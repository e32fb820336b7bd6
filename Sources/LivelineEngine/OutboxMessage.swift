import Foundation
import LivelinePush
import LivelineStore

/// What a message row of the outbox is (its `headers` column, JSON): a push rendered when it was
/// enqueued — a push-to-start or an alert — or a channel to delete (`engine.md`: "Event-like
/// messages … are outbox rows too, rendered when enqueued, each with an idempotency key").
struct OutboxMessage: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        case start
        case alert
        case channelDelete = "channel-delete"
    }

    var kind: Kind
    /// The token pushed to (start, alert).
    var tokenID: Int?
    /// The channel deleted.
    var channelID: String?
    var pushType: String?
    var priority: Int?
    /// `apns-expiration`, UNIX seconds.
    var expiration: Int?
    var collapseID: String?
    /// The `la_starts` row a start belongs to.
    var startID: Int?
    /// The context revision a start carries.
    var rev: Int?
    /// What it is, for the timeline.
    var note: String

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    static func decode(_ text: String?) -> OutboxMessage? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(OutboxMessage.self, from: Data(text.utf8))
    }
}
