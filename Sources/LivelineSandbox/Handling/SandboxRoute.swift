#if canImport(Glibc)
import Glibc
#endif

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

    /// Reads `path` (a query string is ignored). Works on the path's bytes: it is read on every
    /// request, and `/`, `?` and the prefixes are ASCII, so what lies between them is whole UTF-8.
    init(path: String, port: SandboxPort) {
        var path = path
        self = path.withUTF8 { Self.parse($0, port: port) }
    }

    private static func parse(_ path: UnsafeBufferPointer<UInt8>, port: SandboxPort) -> SandboxRoute {
        let slash = UInt8(ascii: "/")
        var rest = path[...]
        if let query = find(UInt8(ascii: "?"), in: rest) { rest = rest[..<query] }
        if port == .device, let token = remainder(of: rest, after: "/3/device") {
            // "/3/device" and "/3/device/" name no token; a further "/" is another path.
            if token.isEmpty || (token.count == 1 && token.first == slash) { return .device(token: "") }
            if token.first == slash, find(slash, in: token.dropFirst()) == nil {
                return .device(token: String(decoding: token.dropFirst(), as: UTF8.self))
            }
            return .notFound(port)
        }
        if let bundle = remainder(of: rest, after: "/4/broadcasts/apps/"), !bundle.isEmpty, find(slash, in: bundle) == nil {
            return .broadcast(bundleID: String(decoding: bundle, as: UTF8.self))
        }
        if port == .management, let app = remainder(of: rest, after: "/1/apps/"), let slashIndex = app.firstIndex(of: slash),
            slashIndex != app.startIndex
        {
            let bundle = String(decoding: app[..<slashIndex], as: UTF8.self)
            let endpoint = app[(slashIndex + 1)...]
            if endpoint.elementsEqual("channels".utf8) { return .channels(bundleID: bundle) }
            if endpoint.elementsEqual("all-channels".utf8) { return .allChannels(bundleID: bundle) }
        }
        return .notFound(port)
    }

    /// What follows `prefix` in `path`, or nil.
    private static func remainder(of path: Slice<UnsafeBufferPointer<UInt8>>, after prefix: StaticString) -> Slice<UnsafeBufferPointer<UInt8>>? {
        let count = prefix.utf8CodeUnitCount
        guard path.count >= count, let base = path.base.baseAddress,
            memcmp(base + path.startIndex, prefix.utf8Start, count) == 0
        else { return nil }
        return path[(path.startIndex + count)...]
    }

    /// The index of the first `byte` in `bytes`, or nil.
    private static func find(_ byte: UInt8, in bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard !bytes.isEmpty, let base = bytes.base.baseAddress,
            let found = memchr(base + bytes.startIndex, Int32(byte), bytes.count)
        else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
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
