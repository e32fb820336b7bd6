import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelinePushWire
import LivelineStore

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
            try CommonFields.userID.integer(body.userId)
            try NotificationFields.dedupeKey.text(body.dedupeKey)
            let userID = UserID(body.userId)
            guard try engine.resolve(userID: userID, dedupeKey: body.dedupeKey) else {
                throw HTTPError.notFound("user \(userID) has no notification with that dedupeKey")
            }
            return try .json(ResolveResponse(resolved: true))
        }
        router.add(Routes.notificationTimeline) { request in
            try auth.requireAdmin(request)
            guard let user = try CommonFields.userID.named("userId", required: true).integerQuery(of: request),
                let dedupeKey = try NotificationFields.dedupeKey.named("dedupeKey", required: true).textQuery(of: request)
            else { throw HTTPError.badRequest("userId and dedupeKey are required", field: "userId") }
            let limit = try ContextFields.timelineLimit.integerQuery(of: request) ?? 200
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
            let id = try NotificationFields.id.integer(text: request.parameter("id"))
            guard try engine.markRead(notification: id, userID: caller.userID) else {
                throw HTTPError.notFound("there is no notification \(id)")
            }
            return try .json(NotificationReadResponse(id: id, read: true))
        }
    }

    /// Checks every field of a notify with its rule (``NotificationFields``).
    static func check(_ body: NotifyRequest) throws {
        try CommonFields.userID.integer(body.userId)
        try NotificationFields.title.text(body.title)
        if let text = body.body { try NotificationFields.body.text(text) }
        try NotificationFields.dedupeKey.text(body.dedupeKey)
        if let link = body.link { try NotificationFields.link.text(link) }
        if let icon = body.icon { try NotificationFields.icon.text(icon) }
        if let ttl = body.ttl { try NotificationFields.ttl.integer(ttl) }
        if let urgency = body.urgency { try NotificationFields.urgency.text(urgency) }
        if let topic = body.topic { try NotificationFields.topic.text(topic) }
    }
}
