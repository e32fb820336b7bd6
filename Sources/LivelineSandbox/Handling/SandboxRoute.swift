/// Which endpoint a request path names.
///
/// Related APNs documentation (`docs/apns.md` §1.2, §1.8): `POST /3/device/<token>`,
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

    /// Reads `path` (a query string is ignored).
    init(path: String, port: SandboxPort) {
        var rest = Substring(path)
        if let query = rest.utf8.firstIndex(of: UInt8(ascii: "?")) { rest = rest[..<query] }
        if port == .device, let token = Self.remainder(of: rest, after: "/3/device") {
            // "/3/device" and "/3/device/" name no token; a further "/" is another path.
            if token.isEmpty || token == "/" {
                self = .device(token: "")
            } else if token.first == "/", !token.utf8.dropFirst().contains(UInt8(ascii: "/")) {
                self = .device(token: String(token.dropFirst()))
            } else {
                self = .notFound(port)
            }
        } else if let bundle = Self.remainder(of: rest, after: "/4/broadcasts/apps/"), !bundle.isEmpty, !bundle.utf8.contains(UInt8(ascii: "/")) {
            self = .broadcast(bundleID: String(bundle))
        } else if port == .management, let app = Self.remainder(of: rest, after: "/1/apps/"),
            let slash = app.utf8.firstIndex(of: UInt8(ascii: "/")), slash != app.startIndex
        {
            let bundle = String(app[..<slash])
            switch app[app.index(after: slash)...] {
            case "channels": self = .channels(bundleID: bundle)
            case "all-channels": self = .allChannels(bundleID: bundle)
            default: self = .notFound(port)
            }
        } else {
            self = .notFound(port)
        }
    }

    /// What follows `prefix` in `path`, or nil.
    private static func remainder(of path: Substring, after prefix: String) -> Substring? {
        path.utf8.starts(with: prefix.utf8) ? path.dropFirst(prefix.utf8.count) : nil
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
