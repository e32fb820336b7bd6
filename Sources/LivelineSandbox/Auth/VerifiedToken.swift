import LivelineCrypto

/// The last provider token that verified on one connection: the same `authorization` text on the
/// connection's next request needs neither the ES256 check nor the verifier's cache.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" (`docs/apns.md`
/// §1.4): a client sends one token for up to an hour. Only the signature check is saved: the
/// token's age is still checked on every request (`403 ExpiredProviderToken` after an hour), as are
/// the connection's rules. Valid while the verifier's keys have not changed since (`generation`).
struct VerifiedToken: Sendable {
    /// The `authorization` header's whole text.
    var authorization: String
    var token: ProviderToken
    /// ``ProviderTokenVerifier/generation`` when it was verified.
    var generation: UInt64
}
