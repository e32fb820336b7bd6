import LivelineCrypto

/// What the service keeps about one subscription: the browser's key and secret, and whether the
/// user still allows it.
struct WebPushSubscriptionRecord: Sendable {
    var subscription: SimulatedSubscription
    /// False once unsubscribed: its pushes are answered 410.
    var active = true
}
