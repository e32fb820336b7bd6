import Foundation
import LivelineCrypto
import LivelinePushWire
import Synchronization

/// The provider token (JWT) of one team, signed once and reused until it is due.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" — refresh no more
/// than once every 20 minutes and no less than once every 60; a token older than an hour is
/// refused with `ExpiredProviderToken` (docs/apns.md §1.4). The token is renewed after
/// `refreshInterval` (50 minutes), or at once when APNs refused it as expired.
public final class ProviderTokenSource: Sendable {
    public let credentials: APNSCredentials
    public let refreshInterval: TimeInterval
    private let clock: @Sendable () -> Date
    private let current = Mutex<ProviderToken?>(nil)

    public init(credentials: APNSCredentials, refreshInterval: TimeInterval = 50 * 60, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.credentials = credentials
        self.refreshInterval = refreshInterval
        self.clock = clock
    }

    /// The token to send now: the cached one, or a new one when it is due.
    public func token() throws -> ProviderToken {
        let now = clock()
        return try current.withLock { cached in
            if let token = cached, now.timeIntervalSince1970 - Double(token.issuedAt) < refreshInterval { return token }
            let token = try sign(at: now)
            cached = token
            return token
        }
    }

    /// APNs refused `rejected` as expired: returns a fresh token. When another request already
    /// replaced it, that newer token is returned (so a burst of rejections rotates once).
    public func rotate(after rejected: ProviderToken) throws -> ProviderToken {
        let now = clock()
        return try current.withLock { cached in
            if let token = cached, token.compact != rejected.compact { return token }
            let token = try sign(at: now)
            cached = token
            return token
        }
    }

    private func sign(at date: Date) throws -> ProviderToken {
        try ProviderToken.sign(
            keyID: credentials.keyID, teamID: credentials.teamID, issuedAt: Int(date.timeIntervalSince1970), key: credentials.key
        )
    }
}
