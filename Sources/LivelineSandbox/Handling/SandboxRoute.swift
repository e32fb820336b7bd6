/// Which endpoint a request path names.
///
/// Related APNs documentation (`spec/apns.md` §1.2, §1.8): `POST /3/device/<token>`,
/// `POST /4/broadcasts/apps/<bundleID>`, and on the management port `/1/apps/<bundleID>/channels`
/// (POST create, GET read, DELETE delete) and `GET /1/apps/<bundleID>/all-channels`. Anything else
/// is `404 BadPath`.
enum SandboxRoute: Sendable, Hashable {
    /// The token as in the path (may be empty or malformed: checked later).
    case device(token: String)
    case broadcast(bundleID: String)
    /// `/1/apps/<bundleID>/channels` under a method decided by the caller.
    case channels(bundleID: String)
    case allChannels(bundleID: String)
    case notFound(SandboxPort)

    init(path: String, port: SandboxPort) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let parts = Array(segments)
        if parts.first == "3", parts.count >= 2, parts[1] == "device", port == .device {
            switch parts.count {
            case 2: self = .device(token: "")
            case 3: self = .device(token: String(parts[2]))
            default: self = .notFound(port)
            }
        } else if parts.count == 4, parts[0] == "4", parts[1] == "broadcasts", parts[2] == "apps", !parts[3].isEmpty {
            self = .broadcast(bundleID: String(parts[3]))
        } else if port == .management, parts.count == 4, parts[0] == "1", parts[1] == "apps", !parts[2].isEmpty {
            switch parts[3] {
            case "channels": self = .channels(bundleID: String(parts[2]))
            case "all-channels": self = .allChannels(bundleID: String(parts[2]))
            default: self = .notFound(port)
            }
        } else {
            self = .notFound(port)
        }
    }

    /// The header that names the request in the answer: `apns-id` for device pushes,
    /// `apns-request-id` for broadcast and channel requests.
    var idHeaderName: String {
        switch self {
        case .device: return "apns-id"
        case .broadcast, .channels, .allChannels: return "apns-request-id"
        // An unknown path on the device port is taken for a device push, on the management port
        // for a channel request.
        case .notFound(let port): return port == .device ? "apns-id" : "apns-request-id"
        }
    }
}
