import Foundation

/// Everything the Web Push service remembers, behind one lock in `WebPushCore`.
struct WebPushState: Sendable {
    var clock: @Sendable () -> Date
    /// By subscription ID (revoked ones stay, inactive).
    var subscriptions: [String: WebPushSubscriptionRecord] = [:]
    /// Every push received, oldest first.
    var pushes: [ReceivedWebPush] = []
    /// Armed faults, oldest first; the first that applies answers the next push.
    var faults: [WebPushFault] = []
    /// Pushes answered 201 so far (the `n` of `/message/<n>`).
    var accepted = 0

    init(clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    /// Uses up one push of the oldest armed fault that applies to `subscriptionID`.
    mutating func takeFault(for subscriptionID: String) -> WebPushFault? {
        guard let index = faults.firstIndex(where: { $0.applies(to: subscriptionID) }) else { return nil }
        let fault = faults[index]
        faults[index].remaining -= 1
        if faults[index].remaining <= 0 { faults.remove(at: index) }
        return fault
    }
}
