import Foundation

/// A device token the sandbox knows: the app it belongs to and whether it still works.
struct DeviceRecord: Sendable {
    enum Status: Sendable, Hashable {
        case active
        /// `410 Unregistered` since the date (the app was removed, or the token rotated).
        case unregistered(Date)
        /// `410 ExpiredToken` since the date.
        case expired(Date)
    }

    var bundleID: String
    var status: Status
}
