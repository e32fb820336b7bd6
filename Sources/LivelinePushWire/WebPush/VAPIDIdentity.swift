import Foundation
import LivelineCrypto
import Synchronization

/// This server's identity towards push services (RFC 8292, VAPID): a P-256 key whose public half
/// the web app passes to `pushManager.subscribe` as `applicationServerKey`, and a contact
/// (`sub`, `mailto:` or `https:`). The `Authorization` header of each origin is made once and
/// used until less than ``renewBefore`` of it is left (Apple asks not to refresh it more than
/// once an hour; RFC 8292 allows at most 24 h).
public final class VAPIDIdentity: Sendable {
    public let key: ES256PrivateKey
    /// `LIVELINE_WEBPUSH_SUBJECT`; nil until configured (then nothing can be sent).
    public let subject: String?
    /// How long a header is valid.
    public static let lifetime: TimeInterval = 12 * 3600
    /// A header with less left than this is made anew.
    public static let renewBefore: TimeInterval = 3600

    private let headers = Mutex<[String: (value: String, expiresAt: Date)]>([:])

    public init(key: ES256PrivateKey, subject: String?) {
        self.key = key
        self.subject = subject
    }

    /// The public key as the web app needs it: the 65-byte uncompressed point, base64url.
    public var publicKey: String { Base64URL.encode(key.publicKey.uncompressed) }

    /// The `Authorization` header for a push to `endpoint` (its origin is the JWT's `aud`).
    public func authorization(for endpoint: String, now: Date) throws -> String {
        try authorization(origin: try Self.origin(of: endpoint), now: now)
    }

    /// The `Authorization` header for a push to a push service at `audience` (an origin, as
    /// ``origin(of:)`` makes it).
    public func authorization(origin audience: String, now: Date) throws -> String {
        guard let subject else {
            throw WebPushError("LIVELINE_WEBPUSH_SUBJECT is not set: push services want a contact (mailto: or https:) in every VAPID token")
        }
        // Used while more than an hour is left, and not when the clock stepped back so far that
        // it expires more than 24 h from now (push services refuse that).
        if let cached = headers.withLock({ $0[audience] }), cached.expiresAt.timeIntervalSince(now) > Self.renewBefore,
            cached.expiresAt.timeIntervalSince(now) <= 24 * 3600
        {
            return cached.value
        }
        // Whole seconds: the claim is an integer.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Self.lifetime).rounded(.down))
        let value = try VAPID.authorization(audience: audience, subject: subject, expiresAt: expiresAt, key: key)
        headers.withLock { $0[audience] = (value, expiresAt) }
        return value
    }

    /// Forgets the header made for `endpoint`'s origin: its push service refused it (401/403), so
    /// the next push signs anew.
    public func forgetAuthorization(for endpoint: String) {
        guard let audience = try? Self.origin(of: endpoint) else { return }
        _ = headers.withLock { $0.removeValue(forKey: audience) }
    }

    /// `scheme://host[:port]` of `endpoint`, the port only when it is not the scheme's default
    /// (RFC 6454 serialisation).
    public static func origin(of endpoint: String) throws -> String {
        guard let url = URLComponents(string: endpoint), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            !host.isEmpty
        else {
            throw WebPushError("the endpoint is not a URL with a host")
        }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        if let port = url.port, port != defaultPort { return "\(scheme)://\(shownHost):\(port)" }
        return "\(scheme)://\(shownHost)"
    }

    /// The file in the data folder that keeps a generated key.
    public static let keyFileName = "webpush-vapid-key.pem"

    /// The key of `LIVELINE_WEBPUSH_VAPID_KEY` (a PEM file), else the one kept in the data folder
    /// (`webpush-vapid-key.pem`, 0600), generated on the first start. `generated` says it was
    /// made now.
    public static func loadOrCreateKey(configured path: String?, dataDirectory: URL) throws -> (key: ES256PrivateKey, generated: Bool) {
        if let path {
            // Not the value in the message: a key given by mistake instead of a path would be shown.
            guard let key = try? ES256PrivateKey(contentsOf: URL(fileURLWithPath: path)) else {
                throw WebPushError("LIVELINE_WEBPUSH_VAPID_KEY must be the path of a readable PEM file holding a P-256 private key")
            }
            return (key, false)
        }
        let file = dataDirectory.appendingPathComponent(keyFileName)
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                return (try ES256PrivateKey(contentsOf: file), false)
            } catch {
                throw WebPushError(
                    "the VAPID key in \(file.path) cannot be read: \(error); remove it to make a new one (browsers then subscribe again)")
            }
        }
        let key = try ES256PrivateKey.generate()
        // With PostgreSQL nothing else may have made the data folder yet.
        try? FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Created 0600 and only if absent: another server starting on the same folder at this
        // moment keeps the key written first, read here.
        do {
            guard try SecretFile.create(at: file, contents: Array(key.pkcs8PEM.utf8)) else {
                return (try ES256PrivateKey(contentsOf: file), false)
            }
        } catch {
            throw WebPushError("could not keep the VAPID key: \(error); check the data folder's permissions and free space")
        }
        return (key, true)
    }
}
