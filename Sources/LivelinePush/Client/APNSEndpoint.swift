import Foundation
import LivelinePushWire

/// Where APNs (or a sandbox speaking its protocol) listens, and how to trust it.
///
/// Related APNs documentation: "Sending notification requests to APNs" (hosts, port 443 or 2197)
/// and "Sending channel management requests to APNs" (ports 2195/2196) — docs/apns.md §1.1.
public struct APNSEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// A CA file to trust instead of the system's (a local sandbox's self-signed certificate).
    public var caFile: String?

    public init(host: String, port: Int = 443, caFile: String? = nil) {
        self.host = host
        self.port = port
        self.caFile = caFile
    }

    public var description: String { "\(host):\(port)" }
}

/// The endpoints of one APNs environment.
public struct APNSEnvironment: Sendable, Hashable {
    /// Device pushes (`/3/device`).
    public var device: APNSEndpoint
    /// Broadcast sends (`/4/broadcasts`). Apple's documents disagree on the host (the device host
    /// in prose, `api-broadcast…` in samples), so it is configurable; the default is the device host.
    public var broadcast: APNSEndpoint
    /// Channel management (`/1/apps/<bundle>/channels`).
    public var management: APNSEndpoint
    /// Whether this is Apple's development environment (tokens from debug builds).
    public var isDevelopment: Bool

    public init(device: APNSEndpoint, broadcast: APNSEndpoint? = nil, management: APNSEndpoint, isDevelopment: Bool) {
        self.device = device
        self.broadcast = broadcast ?? device
        self.management = management
        self.isDevelopment = isDevelopment
    }

    public static let production = APNSEnvironment(
        device: APNSEndpoint(host: "api.push.apple.com"),
        management: APNSEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196),
        isDevelopment: false
    )

    public static let development = APNSEnvironment(
        device: APNSEndpoint(host: "api.sandbox.push.apple.com"),
        management: APNSEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195),
        isDevelopment: true
    )

    /// A local sandbox on `host` with its CA file.
    public static func local(host: String = "127.0.0.1", devicePort: Int, managementPort: Int, caFile: String) -> APNSEnvironment {
        APNSEnvironment(
            device: APNSEndpoint(host: host, port: devicePort, caFile: caFile),
            management: APNSEndpoint(host: host, port: managementPort, caFile: caFile),
            isDevelopment: true
        )
    }
}
