import Foundation

/// Signed-out dashboard sessions (`dashboard_revocations`): a session is a signed cookie, so
/// signing out records its nonce here until the session would have expired anyway; every
/// instance sharing the database refuses it from then on.
public struct DashboardRevocationRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Records that the session `nonce` (valid until `expiresAt`) was signed out, and forgets the
    /// revocations of sessions that have expired by `now`.
    public func revoke(nonce: String, expiresAt: Date, now: Date) throws {
        try database.write { transaction in
            try transaction.execute("DELETE FROM dashboard_revocations WHERE expires_at <= $1", [SQLValue(now)])
            try transaction.execute(
                "INSERT INTO dashboard_revocations (nonce, expires_at) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING",
                [.text(nonce), SQLValue(expiresAt)])
        }
    }

    /// Whether the session `nonce` was signed out.
    public func isRevoked(nonce: String) throws -> Bool {
        try database.read { transaction in
            try transaction.queryOne("SELECT 1 AS revoked FROM dashboard_revocations WHERE nonce = $1", [.text(nonce)]) != nil
        }
    }
}
