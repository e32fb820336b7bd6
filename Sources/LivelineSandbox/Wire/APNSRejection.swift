import Foundation
import LivelinePush
import LivelinePushWire

/// An APNs error answer: the HTTP status, the reason, and for a 410 the moment the token stopped
/// being valid.
///
/// Related APNs documentation: "Handling notification responses from APNs" (`docs/apns.md` §1.6):
/// errors carry a JSON body `{"reason": "…"}`; a 410 body also carries `timestamp`, in
/// milliseconds since 1970.
public struct APNSRejection: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var reason: APNSReason
    /// Only for 410 (`Unregistered`, `ExpiredToken`).
    public var timestamp: Date?

    public init(_ status: Int, _ reason: APNSReason, timestamp: Date? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
    }

    public var description: String { "\(status) \(reason)" }

    /// `{"reason":"…"}`, or `{"reason":"…","timestamp":<ms>}`.
    public var body: [UInt8] {
        if let timestamp {
            let milliseconds = Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down))
            return Array(#"{"reason":"\#(reason.rawValue)","timestamp":\#(milliseconds)}"#.utf8)
        }
        return Array(#"{"reason":"\#(reason.rawValue)"}"#.utf8)
    }

    static func badRequest(_ reason: APNSReason) -> APNSRejection { APNSRejection(400, reason) }
    static func forbidden(_ reason: APNSReason) -> APNSRejection { APNSRejection(403, reason) }
}
