import Foundation
import LivelineCrypto
import LivelineStore
import Synchronization

/// The dashboard's sign-ins (docs/operations.md, "The dashboard").
///
/// A session is a signed cookie: `v1.<expires>.<nonce>.<mac>`, the MAC an HMAC-SHA256 under a key
/// derived from the admin key, so every instance that shares the admin key accepts it and no
/// session table is needed; changing the admin key ends every session. Signing out records the
/// nonce in the database until the session would have expired (``DashboardRevocationRepository``),
/// so every instance refuses it, also after a restart. A form's CSRF token is the HMAC
/// of the session's nonce (the sign-in form's: of a nonce in a short-lived cookie of its own, so a
/// sign-in cannot be forged either). One-time sign-in links (`liveline demo`) are kept in memory,
/// by their hash, and work once.
final class DashboardSessions: Sendable {
    /// How long a session lasts after sign-in.
    static let lifetime: TimeInterval = 12 * 3600
    /// How long a one-time sign-in link works.
    static let linkLifetime: TimeInterval = 3600
    /// How long a sign-in form can be sent after it was shown.
    static let signInFormLifetime: TimeInterval = 3600

    static let sessionCookie = "liveline_session"
    static let signInCookie = "liveline_signin"

    private let key: [UInt8]
    private let adminKeyDigest: [UInt8]
    private let clock: @Sendable () -> Date
    private let revocations: DashboardRevocationRepository

    private struct State {
        /// One-time link tokens by hash, and when they stop working.
        var links: [[UInt8]: Date] = [:]
    }
    private let state = Mutex(State())

    init(adminKey: String, revocations: DashboardRevocationRepository, clock: @escaping @Sendable () -> Date) {
        key = HMACSHA256.code(key: Array(adminKey.utf8), message: Array("liveline dashboard sessions v1".utf8))
        adminKeyDigest = SHA256.digest(Array(adminKey.utf8))
        self.revocations = revocations
        self.clock = clock
    }

    /// A signed-in session: its nonce (what its CSRF token and revocation refer to).
    struct Session: Sendable, Hashable {
        var nonce: String
        var expiresAt: Date
    }

    /// Whether `candidate` is the admin key (compared by digest, in constant time).
    func isAdminKey(_ candidate: String) -> Bool {
        HMACSHA256.constantTimeEqual(SHA256.digest(Array(candidate.utf8)), adminKeyDigest)
    }

    /// A new session and its cookie value.
    func open() -> (session: Session, cookie: String) {
        let expires = Int(clock().addingTimeInterval(Self.lifetime).timeIntervalSince1970)
        let nonce = Base64URL.encode(SecureRandom.bytes(18))
        let body = "v1.\(expires).\(nonce)"
        return (Session(nonce: nonce, expiresAt: Date(timeIntervalSince1970: TimeInterval(expires))), body + "." + mac(body))
    }

    /// The session of a cookie value: well formed, signed by this key, not expired, not revoked.
    func session(cookie: String?) -> Session? {
        guard let cookie else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", let expires = Int(parts[1]) else { return nil }
        let body = "\(parts[0]).\(parts[1]).\(parts[2])"
        guard let given = Base64URL.decode(String(parts[3])), HMACSHA256.constantTimeEqual(given, macBytes(body)) else { return nil }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(expires))
        guard expiresAt > clock() else { return nil }
        let nonce = String(parts[2])
        // A database that cannot be read admits nobody.
        guard (try? revocations.isRevoked(nonce: nonce)) == false else { return nil }
        return Session(nonce: nonce, expiresAt: expiresAt)
    }

    /// Ends `session` everywhere (its cookie is cleared by the caller).
    func revoke(_ session: Session) throws {
        try revocations.revoke(nonce: session.nonce, expiresAt: session.expiresAt, now: clock())
    }

    /// The CSRF token of the session's forms.
    func csrfToken(for session: Session) -> String { mac("csrf." + session.nonce) }

    /// Whether `token` is the session's CSRF token.
    func checkCSRF(_ token: String?, session: Session) -> Bool {
        guard let token, let given = Base64URL.decode(token) else { return false }
        return HMACSHA256.constantTimeEqual(given, macBytes("csrf." + session.nonce))
    }

    /// A sign-in form's cookie value and the token its form carries.
    func signInForm() -> (cookie: String, token: String) {
        let expires = Int(clock().addingTimeInterval(Self.signInFormLifetime).timeIntervalSince1970)
        let cookie = "\(expires).\(Base64URL.encode(SecureRandom.bytes(18)))"
        return (cookie, mac("sign-in." + cookie))
    }

    /// Whether a sign-in form's token belongs to its cookie, and the cookie has not expired.
    func checkSignInForm(cookie: String?, token: String?) -> Bool {
        guard let cookie, let token, let given = Base64URL.decode(token),
            let expires = cookie.split(separator: ".").first.flatMap({ Int($0) }),
            Date(timeIntervalSince1970: TimeInterval(expires)) > clock()
        else { return false }
        return HMACSHA256.constantTimeEqual(given, macBytes("sign-in." + cookie))
    }

    /// A token for a one-time sign-in link (`/dashboard/sign-in?once=…`).
    func oneTimeLinkToken() -> String {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock()
        state.withLock { state in
            state.links = state.links.filter { $0.value > now }
            state.links[SHA256.digest(Array(token.utf8))] = now.addingTimeInterval(Self.linkLifetime)
        }
        return token
    }

    /// Uses up a one-time link token; true when it was valid (it is not any more).
    func redeem(oneTimeToken token: String) -> Bool {
        let digest = SHA256.digest(Array(token.utf8))
        let now = clock()
        return state.withLock { state in
            guard let until = state.links.removeValue(forKey: digest) else { return false }
            return until > now
        }
    }

    private func macBytes(_ text: String) -> [UInt8] { HMACSHA256.code(key: key, message: Array(text.utf8)) }
    private func mac(_ text: String) -> String { Base64URL.encode(macBytes(text)) }
}

/// Cookies and form bodies as the dashboard reads them.
enum FormCoding {
    /// The cookies of a `Cookie` header by name (the first of a name wins).
    static func cookies(_ header: String?) -> [String: String] {
        var cookies: [String: String] = [:]
        for pair in (header ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            if cookies[name] == nil { cookies[name] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return cookies
    }

    /// The fields of an `application/x-www-form-urlencoded` body (the last of a name wins);
    /// nil when it is not valid UTF-8 or percent-encoding.
    static func fields(_ body: [UInt8]) -> [String: String]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
