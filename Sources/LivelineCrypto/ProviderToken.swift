import Foundation

/// An APNs provider authentication token: a JWT signed with ES256, header `{alg, kid}`, claims
/// `{iss, iat}`, sent as `authorization: bearer <compact>`.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs"
/// (`docs/apns.md` §1.4): `alg` is `ES256` (the only algorithm), `kid` the 10-character Key ID,
/// `iss` the 10-character Team ID, `iat` epoch seconds. A token whose `iat` is more than an hour old
/// is rejected with `403 ExpiredProviderToken`; refresh no more than once every 20 minutes and no
/// less than once every 60 (APNSwift regenerates after 55 minutes). Those timing rules belong to
/// the caller; this type only builds, reads and checks the token.
public struct ProviderToken: Sendable, Hashable {
    /// The `kid` header field: the ID of the `.p8` key that signed the token.
    public let keyID: String
    /// The `iss` claim: the developer team ID.
    public let teamID: String
    /// The `iat` claim, in seconds since 1970.
    public let issuedAt: Int
    /// The `header.claims.signature` text, exactly as signed or received.
    public let compact: String

    private init(keyID: String, teamID: String, issuedAt: Int, compact: String) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.compact = compact
    }

    /// Builds and signs a token with `key` (ES256, JOSE r‖s signature, base64url without padding).
    public static func sign(keyID: String, teamID: String, issuedAt: Int, key: ES256PrivateKey) throws -> ProviderToken {
        guard !keyID.isEmpty else { throw CryptoError(.invalidArgument, "the key ID (kid) is empty") }
        guard !teamID.isEmpty else { throw CryptoError(.invalidArgument, "the team ID (iss) is empty") }
        guard issuedAt >= 0 else { throw CryptoError(.invalidArgument, "iat must not be negative") }
        let header = try JWS.json(HeaderOut(alg: "ES256", kid: keyID))
        let claims = try JWS.json(ClaimsOut(iss: teamID, iat: issuedAt))
        let compact = try JWS.sign(header: header, claims: claims, key: key)
        return ProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, compact: compact)
    }

    /// Reads a token without verifying its signature.
    ///
    /// Checks: three base64url parts; a JSON object header with `alg` `"ES256"` and a non-empty
    /// string `kid`; JSON object claims with a non-empty string `iss` and an integer `iat` ≥ 0; a
    /// 64-byte signature. Extra header fields and claims are ignored, and `iat` may be a string of
    /// digits (a real Python APNs client sends it that way; `docs/apns.md`, "Quirks").
    public static func parse(_ compact: String) throws(CryptoError) -> ProviderToken {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw CryptoError(.malformedToken, "a JWT has 3 dot-separated parts; this token has \(parts.count)")
        }
        let header = try JWS.object(String(parts[0]), "header")
        let claims = try JWS.object(String(parts[1]), "claims")

        switch header["alg"] {
        case .string("ES256"): break
        case .string(let other):
            throw CryptoError(.unsupportedAlgorithm, "the token header says alg \(JWS.printable(other)); APNs accepts only ES256")
        case nil:
            throw CryptoError(.unsupportedAlgorithm, "the token header has no alg; APNs accepts only ES256")
        default:
            throw CryptoError(.unsupportedAlgorithm, "the token header alg is not a string; APNs accepts only ES256")
        }
        guard let signature = Base64URL.decode(String(parts[2])), !signature.isEmpty else {
            throw CryptoError(.malformedToken, "the token signature is empty or not base64url")
        }
        guard signature.count == 64 else {
            throw CryptoError(.malformedToken, "the token signature is \(signature.count) bytes; an ES256 signature is 64 (r‖s)")
        }
        let keyID = try nonEmptyString(header["kid"], "header field kid")
        let teamID = try nonEmptyString(claims["iss"], "claim iss")
        let issuedAt: Int
        switch claims["iat"] {
        case .integer(let value) where value >= 0:
            issuedAt = value
        case .string(let text) where !text.isEmpty && text.utf8.allSatisfy({ (0x30...0x39).contains($0) }):
            guard let value = Int(text) else { throw CryptoError(.invalidClaim, "claim iat is too large") }
            issuedAt = value
        case nil:
            throw CryptoError(.missingClaim, "the token has no claim iat")
        default:
            throw CryptoError(.invalidClaim, "claim iat is not a non-negative integer (or a string of digits)")
        }
        return ProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, compact: compact)
    }

    /// Whether the signature is a valid ES256 signature by `key` over the first two parts exactly as
    /// they were sent (`header.claims`, RFC 7515 §5.2), not over a re-encoding of the fields.
    public func verify(with key: ES256PublicKey) -> Bool {
        guard let dot = compact.lastIndex(of: "."),
            let signature = Base64URL.decode(String(compact[compact.index(after: dot)...]))
        else { return false }
        return key.verify(signature: signature, message: Array(compact[..<dot].utf8))
    }

    // MARK: - JSON

    private struct HeaderOut: Encodable {
        var alg: String
        var kid: String
    }

    private struct ClaimsOut: Encodable {
        var iss: String
        var iat: Int
    }

    private static func nonEmptyString(_ field: JWS.Field?, _ name: String) throws(CryptoError) -> String {
        switch field {
        case .string(let value) where !value.isEmpty: return value
        case nil: throw CryptoError(.missingClaim, "the token has no \(name)")
        default: throw CryptoError(.invalidClaim, "the token's \(name) is not a non-empty string")
        }
    }
}
