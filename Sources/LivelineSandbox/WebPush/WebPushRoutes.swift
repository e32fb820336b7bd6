import Foundation
import LivelineHTTP
import LivelineModel

/// The routes of the Web Push service's port: the push resource a browser vendor's service
/// offers (`POST /push/{id}`, RFC 8030 §5) and a JSON control API for processes that cannot call
/// the Swift API (docs/sandbox.md, "Web push service").
enum WebPushRoutes {
    static let push = Route(.post, "/push/{id}")
    static let info = Route(.get, "/push-service")
    static let subscribe = Route(.post, "/subscriptions")
    static let subscriptionPushes = Route(.get, "/subscriptions/{id}/pushes")
    static let unsubscribe = Route(.delete, "/subscriptions/{id}")
    static let subscriptionFaults = Route(.post, "/subscriptions/{id}/faults")
    static let allPushes = Route(.get, "/pushes")
    static let faults = Route(.post, "/faults")

    static func router(core: WebPushCore) -> Router {
        var router = Router()
        router.add(push) { request in core.receive(request) }
        router.add(info) { _ in
            let (subscriptions, pushes) = core.state.withLock { ($0.subscriptions.count, $0.pushes.count) }
            return try .json(
                WebPushControlBodies.Info(
                    origin: core.origin, port: core.port.load(ordering: .relaxed), subscriptions: subscriptions, pushes: pushes))
        }
        router.add(subscribe) { _ in
            try .json(WebPushControlBodies.Subscription(try core.subscribe()), status: 201)
        }
        router.add(subscriptionPushes) { request in
            let id = try knownSubscription(request, core: core)
            return try .json(core.pushes(subscriptionID: id).map(WebPushControlBodies.Push.init))
        }
        router.add(allPushes) { _ in
            try .json(core.state.withLock { $0.pushes }.map(WebPushControlBodies.Push.init))
        }
        router.add(unsubscribe) { request in
            let id = try knownSubscription(request, core: core)
            core.unsubscribe(id)
            return try .json(WebPushControlBodies.Revoked(id: id))
        }
        router.add(subscriptionFaults) { request in
            try armFault(request, subscriptionID: try knownSubscription(request, core: core), core: core)
        }
        router.add(faults) { request in try armFault(request, subscriptionID: nil, core: core) }
        return router
    }

    /// The `{id}` of the request, when it names a subscription (revoked ones too); else 404.
    private static func knownSubscription(_ request: HTTPRequest, core: WebPushCore) throws -> String {
        let id = try request.parameter("id")
        guard core.state.withLock({ $0.subscriptions[id] != nil }) else { throw HTTPError.notFound("no subscription has the ID '\(id)'") }
        return id
    }

    private static func armFault(_ request: HTTPRequest, subscriptionID: String?, core: WebPushCore) throws -> HTTPResponse {
        var body = try request.decode(WebPushControlBodies.Fault.self)
        guard (400...599).contains(body.status) else { throw HTTPError.badRequest("status must be from 400 to 599", field: "status") }
        guard body.count >= 1 else { throw HTTPError.badRequest("count must be at least 1", field: "count") }
        if let retryAfter = body.retryAfter, retryAfter < 0 {
            throw HTTPError.badRequest("retryAfter must be a non-negative number of seconds", field: "retryAfter")
        }
        core.arm(WebPushFault(subscriptionID: subscriptionID, remaining: body.count, status: body.status, retryAfter: body.retryAfter))
        body.subscriptionId = subscriptionID
        return try .json(body, status: 201)
    }
}
