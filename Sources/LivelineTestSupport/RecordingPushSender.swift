import Foundation
import LivelineEngine
import LivelinePush
import LivelinePushWire
import Synchronization

/// A test double for APNs that keeps what the engine sends and answers each push with 200 (or what
/// ``answer`` says), without sockets: for engine and handler tests that look at what was sent,
/// and for benchmarks of the write path without the network.
public final class RecordingPushSender: PushSender {
    /// What the engine asked for, in order.
    public enum Request: Sendable {
        case device(APNSNotification)
        case broadcast(APNSBroadcast)
        case createChannel(bundleID: String)
        case deleteChannel(bundleID: String, channelID: String)
    }

    private struct State {
        var requests: [Request] = []
        var channels: [String] = []
        var nextChannel = 1
    }
    private let state = Mutex(State())
    /// The answer to a device or broadcast push (default: 200 with a fresh apns-id).
    public let answer: @Sendable (Request) -> APNSResult

    public init(answer: (@Sendable (Request) -> APNSResult)? = nil) {
        self.answer = answer ?? { _ in APNSResult(status: 200, apnsID: UUID().uuidString.lowercased(), outcome: .delivered) }
    }

    /// Everything asked for so far.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The device pushes sent to `token`, in order.
    public func pushes(token: String) -> [APNSNotification] {
        requests.compactMap { if case .device(let notification) = $0, notification.deviceToken == token { notification } else { nil } }
    }

    public func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void) {
        let request = Request.device(notification)
        state.withLock { $0.requests.append(request) }
        completion(answer(request))
    }

    public func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void) {
        let request = Request.broadcast(broadcast)
        state.withLock { $0.requests.append(request) }
        completion(answer(request))
    }

    public func createChannel(bundleID: String, storagePolicy: APNSChannelStoragePolicy, completion: @escaping @Sendable (APNSResult) -> Void) {
        let channel = state.withLock { state -> String in
            state.requests.append(.createChannel(bundleID: bundleID))
            defer { state.nextChannel += 1 }
            let id = Data("channel-\(state.nextChannel)".utf8).base64EncodedString()
            state.channels.append(id)
            return id
        }
        completion(APNSResult(status: 201, channelID: channel, outcome: .delivered))
    }

    public func deleteChannel(bundleID: String, channelID: String, completion: @escaping @Sendable (APNSResult) -> Void) {
        state.withLock { state in
            state.requests.append(.deleteChannel(bundleID: bundleID, channelID: channelID))
            state.channels.removeAll { $0 == channelID }
        }
        completion(APNSResult(status: 204, outcome: .delivered))
    }

    public func listChannels(bundleID: String, completion: @escaping @Sendable (_ channels: [String]?, _ result: APNSResult) -> Void) {
        let channels = state.withLock { $0.channels }
        completion(channels, APNSResult(status: 200, outcome: .delivered))
    }
}
