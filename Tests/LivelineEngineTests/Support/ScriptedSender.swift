import Foundation
import LivelineEngine
import LivelinePush
import LivelinePushWire
import Synchronization

/// An in-memory APNs: answers every request at once, from a script, and keeps what it was asked
/// and what it answered. `afterSend` runs after each push was handed over (and answered), on the
/// thread that handed it over: the dispatcher's (where a test arms a fault for the transaction
/// that records the answers), or its launcher's for the pages of a fan-out after the first.
/// With ``answerAfter(_:)`` it answers later, from another thread, counting the requests that
/// wait for their answer; `onRequest` runs as each request is handed over, before its answer.
final class ScriptedSender: PushSender {
    enum Request: Sendable {
        case device(APNSNotification)
        case broadcast(APNSBroadcast)
        case deleteChannel(String)

        /// The device token of a device push.
        var deviceToken: String? { if case .device(let notification) = self { notification.deviceToken } else { nil } }
    }

    private struct State {
        var requests: [Request] = []
        var answers: [APNSResult] = []
        var script: @Sendable (Request) -> APNSResult
        var afterSend: @Sendable () -> Void = {}
        var onRequest: @Sendable (Request) -> Void = { _ in }
        var channels = 0
        var delay: Duration?
        var outstanding = 0
        var mostOutstanding = 0
    }
    private let state: Mutex<State>

    /// `script` answers each request (the `apns-id` or `apns-request-id` is set to the request's own).
    init(script: @escaping @Sendable (Request) -> APNSResult = { _ in ScriptedSender.accepted }) {
        state = Mutex(State(script: script))
    }

    static let accepted = APNSResult(status: 200, latency: .milliseconds(3), outcome: .delivered)

    static func refused(_ status: Int, _ reason: APNSReason, timestamp: Date? = nil) -> APNSResult {
        APNSResult(
            status: status, reason: reason, timestamp: timestamp, latency: .milliseconds(3),
            outcome: APNSOutcome.classify(status: status, reason: reason, timestamp: timestamp)
        )
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var answers: [APNSResult] { state.withLock { $0.answers } }
    var devicePushes: [APNSNotification] { requests.compactMap { if case .device(let notification) = $0 { notification } else { nil } } }

    func script(_ script: @escaping @Sendable (Request) -> APNSResult) { state.withLock { $0.script = script } }
    func afterSend(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.afterSend = body } }
    func onRequest(_ body: @escaping @Sendable (Request) -> Void) { state.withLock { $0.onRequest = body } }
    /// From now on each answer comes `delay` after its request, from another thread.
    func answerAfter(_ delay: Duration) { state.withLock { $0.delay = delay } }
    /// The most requests that waited for their answer at once.
    var mostOutstanding: Int { state.withLock { $0.mostOutstanding } }

    private func answer(_ request: Request, id: String, completion: @escaping @Sendable (APNSResult) -> Void) {
        state.withLock { $0.onRequest }(request)
        let (result, after, delay) = state.withLock { state -> (APNSResult, @Sendable () -> Void, Duration?) in
            var result = state.script(request)
            switch request {
            case .device: result.apnsID = id
            case .broadcast, .deleteChannel: result.requestID = id
            }
            state.requests.append(request)
            state.answers.append(result)
            if state.delay != nil {
                state.outstanding += 1
                state.mostOutstanding = max(state.mostOutstanding, state.outstanding)
            }
            return (result, state.afterSend, state.delay)
        }
        guard let delay else {
            completion(result)
            return after()
        }
        let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            self.state.withLock { $0.outstanding -= 1 }
            completion(result)
            after()
        }
    }

    func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void) {
        answer(.device(notification), id: notification.apnsID, completion: completion)
    }

    func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void) {
        answer(.broadcast(broadcast), id: broadcast.requestID, completion: completion)
    }

    func deleteChannel(bundleID: String, channelID: String, completion: @escaping @Sendable (APNSResult) -> Void) {
        answer(.deleteChannel(channelID), id: UUID().uuidString.lowercased(), completion: completion)
    }

    func createChannel(bundleID: String, storagePolicy: APNSChannelStoragePolicy, completion: @escaping @Sendable (APNSResult) -> Void) {
        let number = state.withLock { state -> Int in
            state.channels += 1
            return state.channels
        }
        let id = Data("channel-\(number)".utf8).base64EncodedString()
        completion(APNSResult(status: 201, requestID: UUID().uuidString.lowercased(), channelID: id, outcome: .delivered))
    }

    func listChannels(bundleID: String, completion: @escaping @Sendable (_ channels: [String]?, _ result: APNSResult) -> Void) {
        completion([], APNSResult(status: 200, outcome: .delivered))
    }
}
