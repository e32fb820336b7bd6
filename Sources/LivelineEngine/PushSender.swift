import LivelinePush

/// Where the engine's pushes go: APNs through `APNSClient`, or a test double.
public protocol PushSender: Sendable {
    func send(_ notification: APNSNotification) async -> APNSResult
    func broadcast(_ broadcast: APNSBroadcast) async -> APNSResult
}

extension APNSClient: PushSender {}
