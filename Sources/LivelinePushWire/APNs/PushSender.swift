/// Where the engine's pushes go: APNs through `APNSClient`, or a test double. Completions may
/// run on any thread (the client's I/O thread): they only hand the answer over.
public protocol PushSender: Sendable {
    func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void)
    func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void)
    /// Channel management (`docs/engine.md`, "Broadcast channels").
    func createChannel(bundleID: String, storagePolicy: APNSChannelStoragePolicy, completion: @escaping @Sendable (APNSResult) -> Void)
    func deleteChannel(bundleID: String, channelID: String, completion: @escaping @Sendable (APNSResult) -> Void)
    func listChannels(bundleID: String, completion: @escaping @Sendable (_ channels: [String]?, _ result: APNSResult) -> Void)
}
