import Foundation

/// Body of `POST /v1/notify`: an inbox record and an alert push to each of the user's devices,
/// once per `dedupeKey` and user (`docs/engine.md`, "Notify").
public struct NotifyRequest: Codable, Sendable, Hashable {
    public var userId: Int
    public var title: String
    public var body: String?
    /// The deep link the app opens (sent as the top-level `link` key beside `aps`).
    public var link: String?
    public var icon: String?
    public var dedupeKey: String
    /// Web pushes only (RFC 8030): how long a push service keeps the push for an offline browser,
    /// seconds (default 86400).
    public var ttl: Int?
    /// Web pushes only: `very-low`, `low`, `normal` (default) or `high`.
    public var urgency: String?
    /// Web pushes only: a pending push with the same topic is replaced (at most 32 characters of
    /// `A–Z a–z 0–9 - _`).
    public var topic: String?

    public init(
        userId: Int, title: String, body: String? = nil, link: String? = nil, icon: String? = nil, dedupeKey: String, ttl: Int? = nil,
        urgency: String? = nil, topic: String? = nil
    ) {
        self.userId = userId
        self.title = title
        self.body = body
        self.link = link
        self.icon = icon
        self.dedupeKey = dedupeKey
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }
}

/// Answer of `GET /api/webpush/vapid-public-key`.
public struct WebPushPublicKeyResponse: Codable, Sendable, Hashable {
    /// The server's VAPID public key: the 65-byte uncompressed P-256 point, base64url.
    public var publicKey: String

    public init(publicKey: String) {
        self.publicKey = publicKey
    }
}

/// Answer of `POST /v1/notify`.
public struct NotifyResponse: Codable, Sendable, Hashable {
    /// False when the user had a record with this dedupe key already: nothing changed, nothing sent.
    public var created: Bool
    /// The inbox record's id (also when it existed already).
    public var id: Int?
    /// Pushes queued, by channel (`alert`, `web-push`).
    public var queued: [String: Int]

    public init(created: Bool, id: Int?, queued: [String: Int]) {
        self.created = created
        self.id = id
        self.queued = queued
    }
}

/// Body of `POST /v1/notify/resolve`.
public struct ResolveRequest: Codable, Sendable, Hashable {
    public var userId: Int
    public var dedupeKey: String

    public init(userId: Int, dedupeKey: String) {
        self.userId = userId
        self.dedupeKey = dedupeKey
    }
}

/// Answer of `POST /v1/notify/resolve`.
public struct ResolveResponse: Codable, Sendable, Hashable {
    public var resolved: Bool
    public init(resolved: Bool) { self.resolved = resolved }
}

/// One inbox record, as `GET /api/notifications` lists it.
public struct NotificationItem: Codable, Sendable, Hashable {
    public var id: Int
    public var title: String
    public var body: String?
    public var icon: String?
    public var link: String?
    public var dedupeKey: String
    /// The thing it was about is settled (the app greys the card out).
    public var resolved: Bool
    public var read: Bool
    public var createdAt: Date

    public init(id: Int, title: String, body: String?, icon: String?, link: String?, dedupeKey: String, resolved: Bool, read: Bool, createdAt: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.icon = icon
        self.link = link
        self.dedupeKey = dedupeKey
        self.resolved = resolved
        self.read = read
        self.createdAt = createdAt
    }
}

/// Answer of `GET /api/notifications`: the caller's records, newest first.
public struct NotificationsResponse: Codable, Sendable, Hashable {
    public var notifications: [NotificationItem]
    public init(notifications: [NotificationItem]) { self.notifications = notifications }
}

/// Answer of `POST /api/notifications/{id}/read`.
public struct NotificationReadResponse: Codable, Sendable, Hashable {
    public var id: Int
    public var read: Bool
    public init(id: Int, read: Bool) {
        self.id = id
        self.read = read
    }
}

/// Answer of `GET /v1/notify/timeline`: every push of the notification (alert and web push) with
/// the answer it got, and what went to the dead letters, newest first.
public struct NotificationTimelineResponse: Codable, Sendable, Hashable {
    public var userId: Int
    public var dedupeKey: String
    public var entries: [ContextTimelineResponse.Entry]

    public init(userId: Int, dedupeKey: String, entries: [ContextTimelineResponse.Entry]) {
        self.userId = userId
        self.dedupeKey = dedupeKey
        self.entries = entries
    }
}
