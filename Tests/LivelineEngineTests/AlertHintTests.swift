import Foundation
import LivelinePush
import LivelinePushWire
import LivelineStore
import Synchronization
import Testing

/// An alert goes once (`docs/engine.md`, "Budgets and priority"): it is a hint for the next push,
/// cleared once APNs accepted a push that carried it.
@Suite struct AlertHintTests {
    /// A change that sets only a priority, made after the alert's push was answered but before
    /// the answer was recorded, moves the hints' revision past that push's: the alert is cleared
    /// all the same, and the next push goes without it, at the priority asked for.
    @Test func aPriorityHintSetWhileTheAlertsPushIsAnsweredDoesNotSendTheAlertAgain() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        let token = try harness.token(0).token
        // Run on the dispatcher's thread once APNs answered the first push, before its record.
        let once = Mutex(false)
        harness.sender.afterSend {
            guard
                !once.withLock({
                    let done = $0; $0 = true; return done
                })
            else { return }
            try? harness.put(delay: 2, priority: 5)
        }
        try harness.put(delay: 1, alert: #"{"title":"Delayed","body":"1 min late"}"#)
        harness.dispatcher.drain()

        let pushes = harness.sender.devicePushes.filter { $0.deviceToken == token }
        #expect(pushes.count == 2)
        func alert(_ push: APNSNotification?) -> Any? {
            push.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["aps"] as? [String: Any] }?["alert"]
        }
        #expect(alert(pushes.first) != nil, "the first push carries the alert")
        #expect(alert(pushes.last) == nil, "the second does not")
        #expect(pushes.last?.priority == .considerPower, "it goes at the priority asked for")
        let context = try #require(try harness.store.contexts.context(key: EngineHarness.contextKey))
        #expect(context.alert == nil && context.priorityHint == nil && context.hintRev == nil)
    }
}
