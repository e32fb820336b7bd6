/// Which APNs environment the sandbox plays.
///
/// Related APNs documentation: "Handling notification responses from APNs" (`docs/apns.md` §1.2):
/// `apns-unique-id` is returned in the development environment only.
public enum SandboxEnvironment: String, Sendable, Hashable, Codable {
    /// `api.sandbox.push.apple.com`: 200s carry `apns-unique-id`.
    case development
    /// `api.push.apple.com`.
    case production
}
