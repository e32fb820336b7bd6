import Foundation
import LivelineCrypto
import LivelineHTTP
import LivelineStore

/// Checks credentials: bearer tokens of users (`/api/…`) and the admin key (`/v1/…`).
///
/// Bearer tokens are stored only as SHA-256 hashes (`docs/engine.md`, "Auth"), so a token is hashed
/// and looked up; neither the token nor its hash is ever logged or put into an error message.
public struct Authenticator: Sendable {
    let accounts: AccountRepository
    let adminKeyDigest: [UInt8]
    let sessions = SessionCache()
    /// Failed authentications per client address (shared with the dashboard's sign-in).
    public let limiter: AuthFailureLimiter

    public init(accounts: AccountRepository, adminKey: String, limiter: AuthFailureLimiter = AuthFailureLimiter(perMinute: 0)) {
        self.accounts = accounts
        self.adminKeyDigest = SHA256.digest(Array(adminKey.utf8))
        self.limiter = limiter
    }

    /// The user behind the request's bearer token, or a 401 (429 while the client's address has
    /// failed too often; see ``AuthFailureLimiter``).
    public func caller(of request: HTTPRequest) throws -> Caller {
        try limiter.check(request)
        let hash = SHA256.hex(try failing(request) { try Self.bearerToken(of: request) })
        // The version first: a session ended after it was read is not taken from the cache.
        let version = try accounts.database.changeVersionOfEveryWriter()
        if let version, let caller = sessions.caller(forTokenHash: hash, version: version) { return caller }
        guard let session = try accounts.session(tokenHash: hash) else {
            limiter.failed(request, credential: hash)
            throw HTTPError.unauthorized("the bearer token is not valid; create one with `liveline users add`")
        }
        let caller = Caller(user: session.user, sessionID: session.id)
        if let version { sessions.store(caller, forTokenHash: hash, version: version) }
        return caller
    }

    /// Ends the session of the request's bearer token (its user signs out): refused from now on,
    /// by every instance.
    public func endSession(of request: HTTPRequest) throws {
        let caller = try caller(of: request)
        let hash = SHA256.hex(try Self.bearerToken(of: request))
        sessions.remove(tokenHash: hash)
        try accounts.deleteSession(id: caller.sessionID)
    }

    /// `body`, counting a refusal as a failed authentication of the request's address when it
    /// presented credentials (a request without any is not a guess).
    private func failing<T>(_ request: HTTPRequest, _ body: () throws -> T) throws -> T {
        do { return try body() } catch {
            if let header = request.headers["authorization"] { limiter.failed(request, credential: header) }
            throw error
        }
    }

    /// Passes when the request carries the admin key as its bearer token, else a 401.
    public func requireAdmin(_ request: HTTPRequest) throws {
        try limiter.check(request)
        let token = try failing(request) { try Self.bearerToken(of: request) }
        guard HMACSHA256.constantTimeEqual(SHA256.digest(Array(token.utf8)), adminKeyDigest) else {
            limiter.failed(request, credential: token)
            throw HTTPError.unauthorized("this route needs the admin key (LIVELINE_ADMIN_KEY) as bearer token")
        }
    }

    static func bearerToken(of request: HTTPRequest) throws -> String {
        guard let header = request.headers["authorization"] else {
            throw HTTPError.unauthorized("missing `Authorization: Bearer <token>` header")
        }
        // "Bearer" (any case), spaces, the token; parsed on UTF-8 bytes (this runs on every request).
        let bytes = header.utf8
        let scheme = bytes.prefix(6)
        var rest = bytes.dropFirst(6)
        guard scheme.count == 6, String(decoding: scheme, as: UTF8.self).lowercased() == "bearer", rest.first == UInt8(ascii: " ") else {
            throw HTTPError.unauthorized("the Authorization header must be `Bearer <token>`")
        }
        rest = rest.drop { $0 == UInt8(ascii: " ") }
        while rest.last == UInt8(ascii: " ") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains(UInt8(ascii: " ")) else {
            throw HTTPError.unauthorized("the Authorization header must be `Bearer <token>`")
        }
        return String(decoding: rest, as: UTF8.self)
    }
}
