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

    public init(accounts: AccountRepository, adminKey: String) {
        self.accounts = accounts
        self.adminKeyDigest = SHA256.digest(Array(adminKey.utf8))
    }

    /// The user behind the request's bearer token, or a 401.
    public func caller(of request: HTTPRequest) throws -> Caller {
        let hash = SHA256.hex(try Self.bearerToken(of: request))
        if let caller = sessions.caller(forTokenHash: hash) { return caller }
        guard let session = try accounts.session(tokenHash: hash) else {
            throw HTTPError.unauthorized("the bearer token is not valid; create one with `liveline users add`")
        }
        let caller = Caller(user: session.user, sessionID: session.id)
        sessions.store(caller, forTokenHash: hash)
        return caller
    }

    /// Passes when the request carries the admin key as its bearer token, else a 401.
    public func requireAdmin(_ request: HTTPRequest) throws {
        let token = try Self.bearerToken(of: request)
        guard Self.constantTimeEqual(SHA256.digest(Array(token.utf8)), adminKeyDigest) else {
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

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
