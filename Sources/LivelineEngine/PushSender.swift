import LivelinePush

/// Where the engine's pushes go: APNs through `APNSClient`, or a test double. Completions may
/// run on any thread (the client's I/O thread): they only hand the answer over.
public protocol PushSender: Sendable {
    func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void)
    func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void)
}

extension APNSClient: PushSender {}
