import Foundation
import LivelineCrypto
import LivelineHTTP
import LivelineStore

/// Checks credentials: bearer tokens of users (`/api/…`) and the admin key (`/v1/…`).
///
/// Bearer tokens are stored only as SHA-256 hashes (`engine.md`, "Auth"), so a token is hashed
/// and looked up; neither the token nor its hash is ever logged or put into an error message.
struct Authenticator: Sendable {
    let accounts: AccountRepository
    let adminKeyDigest: [UInt8]

    init(accounts: AccountRepository, adminKey: String) {
        self.accounts = accounts
        self.adminKeyDigest = SHA256.digest(Array(adminKey.utf8))
    }

    /// The user behind the request's bearer token, or a 401.
    func caller(of request: HTTPRequest) throws -> Caller {
        let token = try Self.bearerToken(of: request)
        guard let session = try accounts.session(tokenHash: SHA256.hex(token)) else {
            throw HTTPError.unauthorized("the bearer token is not valid; create one with `liveline users add`")
        }
        return Caller(user: session.user, sessionID: session.id)
    }

    /// Passes when the request carries the admin key as its bearer token, else a 401.
    func requireAdmin(_ request: HTTPRequest) throws {
        let token = try Self.bearerToken(of: request)
        guard Self.constantTimeEqual(SHA256.digest(Array(token.utf8)), adminKeyDigest) else {
            throw HTTPError.unauthorized("this route needs the admin key (LIVELINE_ADMIN_KEY) as bearer token")
        }
    }

    static func bearerToken(of request: HTTPRequest) throws -> String {
        guard let header = request.headers["authorization"] else {
            throw HTTPError.unauthorized("missing `Authorization: Bearer <token>` header")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw HTTPError.unauthorized("the Authorization header must be `Bearer <token>`")
        }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
