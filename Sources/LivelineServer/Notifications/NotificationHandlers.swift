import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore
import LivelineWebPush

/// Notify (`docs/engine.md`, "Notify"): `POST /v1/notify` and `/v1/notify/resolve` for the server
/// side (admin key), `GET /api/notifications` and `POST /api/notifications/{id}/read` for the app.
struct NotificationHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    /// This server's VAPID identity.
    let webPush: VAPIDIdentity
    let clock: @Sendable () -> Date

    func addRoutes(to router: inout Router) {
        router.add(Routes.notify) { request in
            try auth.requireAdmin(request)
            let body = try request.decode(NotifyRequest.self)
            try Self.check(body)
            let userID = UserID(body.userId)
            guard try engine.user(id: userID) != nil else {
                throw HTTPError.notFound("there is no user \(userID)")
            }
            let result = try engine.notify(
                userID: userID, title: body.title, body: body.body, link: body.link, icon: body.icon, dedupeKey: body.dedupeKey,
                webPush: WebPushOptions(ttl: body.ttl ?? WebPushMessage.defaultTTL, urgency: body.urgency ?? "normal", topic: body.topic)
            )
            let id = try result.notification?.id ?? engine.notification(userID: userID, dedupeKey: body.dedupeKey)?.id
            return try .json(NotifyResponse(created: result.created, id: id, queued: result.queued), status: result.created ? 201 : 200)
        }
        router.add(Routes.resolveNotification) { request in
            try auth.requireAdmin(request)
            let body = try request.decode(ResolveRequest.self)
            guard !body.dedupeKey.isEmpty else { throw HTTPError.badRequest("dedupeKey must not be empty", field: "dedupeKey") }
            let userID = UserID(body.userId)
            guard try engine.resolve(userID: userID, dedupeKey: body.dedupeKey) else {
                throw HTTPError.notFound("user \(userID) has no notification with that dedupeKey")
            }
            return try .json(ResolveResponse(resolved: true))
        }
        router.add(Routes.notificationTimeline) { request in
            try auth.requireAdmin(request)
            guard let text = request.query["userId"], let user = Int(text), user > 0 else {
                throw HTTPError.badRequest("userId must be a user id (a whole number)", field: "userId")
            }
            guard let dedupeKey = request.query["dedupeKey"], !dedupeKey.isEmpty else {
                throw HTTPError.badRequest("dedupeKey is required", field: "dedupeKey")
            }
            let limit = try request.integerQuery("limit", in: 1...1000) ?? 200
            guard let entries = try engine.notificationTimeline(userID: UserID(user), dedupeKey: dedupeKey, limit: limit) else {
                throw HTTPError.notFound("user \(user) has no notification with that dedupeKey")
            }
            return try .json(NotificationTimelineResponse(userId: user, dedupeKey: dedupeKey, entries: entries.map(ContextHandlers.entry)))
        }
        router.add(Routes.webPushPublicKey) { request in
            _ = try auth.caller(of: request)
            return try .json(WebPushPublicKeyResponse(publicKey: webPush.publicKey))
        }
        router.add(Routes.notifications) { request in
            let caller = try auth.caller(of: request)
            let items = try engine.notifications(userID: caller.userID).map { record in
                NotificationItem(
                    id: record.id, title: record.title, body: record.body, icon: record.icon, link: record.link, dedupeKey: record.dedupeKey,
                    resolved: record.resolved, read: record.readAt != nil, createdAt: record.createdAt
                )
            }
            return try .json(NotificationsResponse(notifications: items))
        }
        router.add(Routes.readNotification) { request in
            let caller = try auth.caller(of: request)
            guard let id = Int(try request.parameter("id")), id > 0 else {
                throw HTTPError.badRequest("id must be a notification id (a whole number)", field: "id")
            }
            guard try engine.markRead(notification: id, userID: caller.userID) else {
                throw HTTPError.notFound("there is no notification \(id)")
            }
            return try .json(NotificationReadResponse(id: id, read: true))
        }
    }

    static func check(_ body: NotifyRequest) throws {
        let title = body.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= 200 else { throw HTTPError.badRequest("title must be 1 to 200 characters", field: "title") }
        if let text = body.body, text.count > 1000 { throw HTTPError.badRequest("body must be at most 1000 characters", field: "body") }
        guard !body.dedupeKey.isEmpty, body.dedupeKey.utf8.count <= 200 else {
            throw HTTPError.badRequest("dedupeKey must be 1 to 200 bytes", field: "dedupeKey")
        }
        if let link = body.link, link.isEmpty || link.utf8.count > 2000 || URL(string: link)?.scheme == nil {
            throw HTTPError.badRequest("link must be a URL with a scheme, e.g. liveline://shopping/2026-01-05", field: "link")
        }
        if let icon = body.icon, icon.isEmpty || icon.count > 64 { throw HTTPError.badRequest("icon must be 1 to 64 characters", field: "icon") }
        if let ttl = body.ttl, !(0...2_419_200).contains(ttl) {
            throw HTTPError.badRequest("ttl must be 0 to 2419200 seconds (28 days)", field: "ttl")
        }
        if let urgency = body.urgency, !WebPushMessage.urgencies.contains(urgency) {
            throw HTTPError.badRequest("urgency must be very-low, low, normal or high", field: "urgency")
        }
        if let topic = body.topic, !WebPushMessage.isValidTopic(topic) {
            throw HTTPError.badRequest("topic must be 1 to 32 characters of A-Z, a-z, 0-9, - and _ (RFC 8030)", field: "topic")
        }
    }
}
