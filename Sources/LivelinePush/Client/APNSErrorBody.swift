import Foundation
import LivelineModel
import LivelinePushWire

/// The JSON body of an APNs error: `{"reason": "…", "timestamp": <ms>}`.
struct APNSErrorBody: Decodable {
    var reason: String?
    /// Milliseconds since 1970 (410 only).
    var timestamp: Double?

    static func parse(_ body: [UInt8]) -> (APNSReason?, Date?) {
        guard !body.isEmpty, let decoded = try? JSONDecoder().decode(APNSErrorBody.self, fromUntrusted: Data(body)) else { return (nil, nil) }
        return (decoded.reason.map(APNSReason.init(rawValue:)), decoded.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) })
    }
}
