import Foundation

/// Where the engine's web pushes go: `WebPushClient`, or a test double. Completions may run on
/// any thread: they only hand the answer over.
public protocol WebPushSender: Sendable {
    func send(_ request: WebPushRequest, completion: @escaping @Sendable (WebPushResponse) -> Void)
}
