import Foundation
import LivelineHTTP
import LivelineLog

/// A push service like a browser vendor's, on this machine over HTTP/1.1: one endpoint URL per
/// simulated browser subscription, checking each push as Apple's push service for Safari does,
/// decrypting it with the browser's key and recording it, so tests see what a browser would show.
///
/// Sources: RFC 8030 (push resource, `TTL`, `Urgency`, `Topic`, 201 with `Location`), RFC 8291
/// (`aes128gcm` message encryption), RFC 8292 (VAPID); Apple: "Sending web push notifications in
/// web apps and browsers" (`docs/apns.md` §1.10). The checks, their order and the control API are
/// listed in docs/sandbox.md, "Web push service". The endpoints are `http`, not `https` as real push
/// services are: only the transport differs.
public final class WebPushService: Sendable {
    let core: WebPushCore
    private let server: HTTPServer

    private init(core: WebPushCore, server: HTTPServer) {
        self.core = core
        self.server = server
    }

    /// Listens on 127.0.0.1 (port 0: a free one).
    ///
    /// `host` is the IPv4 address to bind (0.0.0.0: every address; the origin then names
    /// 127.0.0.1); `clock` is the service's idea of now (VAPID `exp`, `receivedAt`).
    public static func start(
        port: Int = 0, host: String = "127.0.0.1", clock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> WebPushService {
        let core = WebPushCore(host: host, clock: clock)
        core.port.store(port, ordering: .relaxed)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: host, port: port, threads: 2, requiresJSONBodies: false),
            router: WebPushRoutes.router(core: core), accessLog: LogSink.discarding()
        )
        try server.start()
        core.port.store(server.port, ordering: .relaxed)
        return WebPushService(core: core, server: server)
    }

    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>` — the `aud` every VAPID token must carry.
    public var origin: String { core.origin }

    /// The service's idea of now: VAPID `exp` is checked against it, `receivedAt` is read from it.
    public var clock: @Sendable () -> Date {
        get { core.state.withLock { $0.clock } }
        set { core.state.withLock { $0.clock = newValue } }
    }

    /// A new simulated browser: its own P-256 key pair and 16-byte auth secret; `subscription` is
    /// what the browser's `PushSubscription.toJSON()` would give (endpoint `\(origin)/push/<id>`).
    public func subscribe() throws -> SimulatedSubscription {
        try core.subscribe()
    }

    /// The subscription `id` names (also a revoked one); nil when there is none.
    public func subscription(_ id: String) -> SimulatedSubscription? {
        core.state.withLock { $0.subscriptions[id]?.subscription }
    }

    /// Pushes received for the subscription, oldest first (also those answered with a fault).
    public func pushes(subscriptionID: String) -> [ReceivedWebPush] {
        core.pushes(subscriptionID: subscriptionID)
    }

    /// Every push received, oldest first (also those to unknown subscriptions).
    public var allPushes: [ReceivedWebPush] { core.state.withLock { $0.pushes } }

    /// The subscription is gone (the user revoked it): its pushes are answered 410 from now on.
    public func unsubscribe(_ subscriptionID: String) {
        core.unsubscribe(subscriptionID)
    }

    /// The next `count` pushes to the subscription (nil: to any) are answered `status` (e.g. 404,
    /// 410, 413, 429, 500, 503), with `Retry-After: retryAfter` when given; the body is
    /// `{"reason": …}`. Faults apply in the order armed; a `count` below 1 arms nothing.
    public func failNext(subscriptionID: String?, count: Int, status: Int, retryAfter: Int? = nil) {
        core.arm(WebPushFault(subscriptionID: subscriptionID, remaining: count, status: status, retryAfter: retryAfter))
    }

    /// Stops listening (requests in progress finish first). Safe to call twice.
    public func stop() {
        server.shutdown(timeout: .seconds(2))
    }
}
