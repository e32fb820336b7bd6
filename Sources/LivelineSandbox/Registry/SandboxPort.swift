/// The HTTP/2 ports of the sandbox.
///
/// Related APNs documentation (`docs/apns.md` §1.1): device pushes go to `api(.sandbox).push.apple.com`
/// and the channel management API to `api-manage-broadcast(.sandbox).push.apple.com` on its own port;
/// where broadcast sends go is ambiguous (§1.8), so both ports take them.
enum SandboxPort: Sendable, Hashable {
    /// `/3/device/…` and `/4/broadcasts/apps/…`.
    case device
    /// `/1/apps/…/channels`, `/1/apps/…/all-channels` and `/4/broadcasts/apps/…`.
    case management
}
