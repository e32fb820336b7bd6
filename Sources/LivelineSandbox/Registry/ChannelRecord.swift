import Foundation

/// A broadcast channel.
///
/// Related APNs documentation: "Sending channel management requests to APNs" (`docs/apns.md`
/// §1.8): channel IDs are random base64 and never reissued; the storage policy (0 = no message
/// stored, 1 = most recent message stored) cannot change after creation.
struct ChannelRecord: Sendable {
    var id: String
    var bundleID: String
    var storagePolicy: Int
    var createdAt: Date
}
