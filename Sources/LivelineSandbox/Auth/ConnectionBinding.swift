import Foundation

/// What APNs remembers about one connection: the key and team of its first authenticated push,
/// the token in use, and how many streams it has carried.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" (`docs/apns.md`
/// §1.4): one connection serves one team; a token of another key than the first push's is
/// `403 UnrelatedKeyIdInToken`; switching to a new token more than once per 20 minutes on one
/// connection is `429 TooManyProviderTokenUpdates` (the connection keeps its current token).
///
/// A "new token" is one with other claims (`iat`): ES256 signatures are randomized, so two
/// signings of the same claims (e.g. by two threads of one provider) differ in text but are the
/// same token as far as the update rule goes.
struct ConnectionBinding: Sendable {
    var keyID: String?
    var teamID: String?
    /// The `iat` of the token in use, and when it was adopted.
    var tokenIssuedAt: Int?
    var tokenAdoptedAt = Date.distantPast
    /// Streams received so far (for the GOAWAY and drop faults).
    var streams = 0
    /// A GOAWAY was sent or the connection dropped: later requests are not processed.
    var ended = false
    /// The token in use as last verified, so that the same text is not verified again.
    var verified: VerifiedToken?

    /// The shortest spacing of token updates on one connection.
    static let tokenUpdateInterval: TimeInterval = 20 * 60

    /// Applies the connection rules to a valid, unexpired `token`; binds the connection on its
    /// first one.
    mutating func admit(issuedAt: Int, keyID: String, teamID: String, now: Date) throws(APNSRejection) {
        guard let boundKey = self.keyID else {
            self.keyID = keyID
            self.teamID = teamID
            tokenIssuedAt = issuedAt
            tokenAdoptedAt = now
            return
        }
        guard keyID == boundKey else { throw .forbidden(.unrelatedKeyIDInToken) }
        guard issuedAt != tokenIssuedAt else { return }
        guard now.timeIntervalSince(tokenAdoptedAt) >= Self.tokenUpdateInterval else {
            throw APNSRejection(429, .tooManyProviderTokenUpdates)
        }
        tokenIssuedAt = issuedAt
        tokenAdoptedAt = now
    }
}
