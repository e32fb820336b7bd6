import Foundation
import LivelineCrypto
import LivelineModel
import Synchronization

/// The Web Push service's behaviour, shared by its routes and its Swift API: subscriptions, the
/// record of pushes, armed faults. Thread-safe: the state sits behind one lock; verifying and
/// decrypting (the slow steps) happen outside it.
final class WebPushCore: Sendable {
    /// The host written in the origin (a service listening on every address is reached on the
    /// loopback one).
    let originHost: String
    let state: Mutex<WebPushState>
    /// The port listened on, once known (the configured one, or the bound one of port 0).
    let port = Atomic<Int>(0)

    init(host: String, clock: @escaping @Sendable () -> Date) {
        originHost = host == "0.0.0.0" ? "127.0.0.1" : host
        state = Mutex(WebPushState(clock: clock))
    }

    /// `http://<host>:<port>`: what every endpoint starts with and every VAPID `aud` must be.
    var origin: String { "http://\(originHost):\(port.load(ordering: .relaxed))" }

    var now: Date { state.withLock { $0.clock }() }

    /// A new browser subscription: a fresh P-256 key pair, 16 random bytes of auth secret
    /// (RFC 8291 §3.2) and a random URL-safe ID.
    func subscribe() throws -> SimulatedSubscription {
        let key = try ES256PrivateKey.generate()
        let authSecret = SecureRandom.bytes(WebPushPayload.authSecretLength)
        let id = Base64URL.encode(SecureRandom.bytes(12))
        let simulated = SimulatedSubscription(
            id: id,
            subscription: WebPushSubscription(
                endpoint: "\(origin)/push/\(id)",
                keys: WebPushSubscription.Keys(p256dh: Base64URL.encode(key.publicKey.uncompressed), auth: Base64URL.encode(authSecret))
            ),
            privateKey: key, authSecret: authSecret
        )
        state.withLock { $0.subscriptions[id] = WebPushSubscriptionRecord(subscription: simulated) }
        return simulated
    }

    /// Marks `id` revoked; false when there is no such subscription.
    @discardableResult
    func unsubscribe(_ id: String) -> Bool {
        state.withLock { state in
            guard state.subscriptions[id] != nil else { return false }
            state.subscriptions[id]?.active = false
            return true
        }
    }

    func arm(_ fault: WebPushFault) {
        guard fault.remaining > 0 else { return }
        state.withLock { $0.faults.append(fault) }
    }

    func pushes(subscriptionID: String) -> [ReceivedWebPush] {
        state.withLock { $0.pushes.filter { $0.subscriptionID == subscriptionID } }
    }
}
