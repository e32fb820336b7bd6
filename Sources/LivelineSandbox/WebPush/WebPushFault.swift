/// A fault armed with `WebPushService.failNext`: the next `remaining` pushes to the subscription
/// (nil: to any) are answered `status`.
struct WebPushFault: Sendable {
    var subscriptionID: String?
    var remaining: Int
    var status: Int
    var retryAfter: Int?

    func applies(to id: String) -> Bool { subscriptionID == nil || subscriptionID == id }
}
