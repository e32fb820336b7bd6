import Foundation

/// Voluntary Application Server Identification for Web Push (RFC 8292): the application server
/// signs a JWT for the push service and sends it with its public key in the `Authorization`
/// header of every push request.
///
/// The header is `vapid t=<JWT>, k=<base64url of the 65-byte uncompressed public key>` (RFC 8292
/// §3). The JWT (RFC 8292 §2) has the header `{"typ":"JWT","alg":"ES256"}` and the claims `aud`
/// (the origin of the push resource, e.g. `https://fcm.googleapis.com`), `exp` (at most 24 hours
/// ahead) and `sub` (a `mailto:` or `https:` contact URI); its signature is ES256 as JOSE r‖s
/// (RFC 7518 §3.4), base64url without padding.
public enum VAPID {
    /// The longest a token may be valid: 24 hours (RFC 8292 §2).
    public static let maximumLifetime: TimeInterval = 24 * 60 * 60

    /// The `Authorization` header value for a push request to the push service at `audience`.
    ///
    /// Throws `.invalidArgument` when `audience` is not an origin (`https://host[:port]`, no path)
    /// or `subject` does not start with `mailto:` or `https:` (RFC 8292 §2.1). `expiresAt` is the
    /// caller's to choose (at most 24 hours ahead, or push services refuse the token); it is
    /// written in whole seconds, rounded down.
    public static func authorization(audience: String, subject: String, expiresAt: Date, key: ES256PrivateKey) throws(CryptoError) -> String {
        guard isOrigin(audience) else {
            throw CryptoError(.invalidArgument, "the VAPID audience must be the push service's origin (scheme://host[:port], no path)")
        }
        guard isContact(subject) else {
            throw CryptoError(.invalidArgument, "the VAPID subject must be a mailto: or https: URI (RFC 8292 §2.1)")
        }
        let claims = try JWS.json(ClaimsOut(aud: audience, exp: Int(expiresAt.timeIntervalSince1970.rounded(.down)), sub: subject))
        let token = try JWS.sign(header: Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8), claims: claims, key: key)
        return "vapid t=\(token), k=\(Base64URL.encode(key.publicKey.uncompressed))"
    }

    /// Checks an `Authorization` header value the way a push service does, and returns its claims.
    ///
    /// Parses `vapid t=…, k=…` (parameters in any order, optionally quoted), reads `k` as a P-256
    /// public key, and checks in this order: the JWT's `alg` is ES256; its signature verifies with
    /// `k`; `aud` equals `audience`; `exp` is after `now` and at most 24 hours after it; `sub`
    /// starts with `mailto:` or `https:`. Each failure throws a `CryptoError` whose message names
    /// the check: `.malformedToken`, `.invalidKey` (k), `.unsupportedAlgorithm`,
    /// `.invalidSignature`, `.missingClaim` or `.invalidClaim` (aud, exp, sub).
    public static func verify(authorization: String, audience: String, now: Date) throws(CryptoError) -> VAPIDClaims {
        let (token, keyText) = try parameters(of: authorization)
        guard let keyBytes = Base64URL.decode(keyText) else {
            throw CryptoError(.invalidKey, "the vapid parameter k is not base64url")
        }
        let publicKey: ES256PublicKey
        do {
            publicKey = try ES256PublicKey(uncompressed: keyBytes)
        } catch {
            throw CryptoError(.invalidKey, "the vapid parameter k is not a P-256 public key: \(error.message)")
        }

        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else {
            throw CryptoError(.malformedToken, "a JWT has 3 dot-separated parts; the vapid t has \(parts.count)")
        }
        let header = try JWS.object(parts[0], "header")
        switch header["alg"] {
        case .string("ES256"): break
        case .string(let other): throw CryptoError(.unsupportedAlgorithm, "the VAPID JWT says alg \(JWS.printable(other)); VAPID uses ES256")
        default: throw CryptoError(.unsupportedAlgorithm, "the VAPID JWT header has no string alg; VAPID uses ES256")
        }
        guard let signature = Base64URL.decode(parts[2]), signature.count == 64 else {
            throw CryptoError(.malformedToken, "the VAPID JWT signature is not 64 base64url-encoded bytes (ES256 r‖s)")
        }
        guard publicKey.verify(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)) else {
            throw CryptoError(.invalidSignature, "the VAPID JWT signature does not verify with the public key k")
        }

        let claims = try JWS.object(parts[1], "claims")
        let aud = try string(claims["aud"], "aud")
        guard aud == audience else {
            throw CryptoError(.invalidClaim, "the VAPID claim aud \(JWS.printable(aud)) is not this push service's origin")
        }
        let exp: Int
        switch claims["exp"] {
        case .integer(let value): exp = value
        case nil: throw CryptoError(.missingClaim, "the VAPID JWT has no claim exp")
        default: throw CryptoError(.invalidClaim, "the VAPID claim exp is not an integer number of seconds")
        }
        let seconds = now.timeIntervalSince1970
        guard Double(exp) > seconds else { throw CryptoError(.invalidClaim, "the VAPID claim exp is not after now: the token has expired") }
        guard Double(exp) <= seconds + maximumLifetime else {
            throw CryptoError(.invalidClaim, "the VAPID claim exp is more than 24 hours after now (RFC 8292 §2)")
        }
        let sub = try string(claims["sub"], "sub")
        guard isContact(sub) else {
            throw CryptoError(.invalidClaim, "the VAPID claim sub is not a mailto: or https: URI (RFC 8292 §2.1)")
        }
        return VAPIDClaims(audience: aud, subject: sub, expiresAt: Date(timeIntervalSince1970: Double(exp)), publicKey: keyBytes)
    }

    private struct ClaimsOut: Encodable {
        var aud: String
        var exp: Int
        var sub: String
    }

    /// The `t` and `k` parameters of `vapid t=…, k=…` (RFC 8292 §3; auth-params of RFC 9110 §11.2).
    private static func parameters(of authorization: String) throws(CryptoError) -> (token: String, key: String) {
        let value = authorization.trimmingCharacters(in: .whitespaces)
        guard let space = value.firstIndex(of: " "), value[..<space].lowercased() == "vapid" else {
            throw CryptoError(.malformedToken, "the Authorization value is not of the form vapid t=…, k=… (RFC 8292 §3)")
        }
        var parameters: [String: String] = [:]
        for item in value[space...].split(separator: ",") {
            let pair = item.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else {
                throw CryptoError(.malformedToken, "a vapid parameter has no = (expected t=… and k=…)")
            }
            let name = pair[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var text = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            guard parameters.updateValue(text, forKey: name) == nil else {
                throw CryptoError(.malformedToken, "the vapid parameter \(JWS.printable(name)) appears twice")
            }
        }
        guard let token = parameters["t"], !token.isEmpty else {
            throw CryptoError(.malformedToken, "the vapid Authorization has no parameter t (the JWT)")
        }
        guard let key = parameters["k"], !key.isEmpty else {
            throw CryptoError(.malformedToken, "the vapid Authorization has no parameter k (the public key)")
        }
        return (token, key)
    }

    private static func string(_ field: JWS.Field?, _ name: String) throws(CryptoError) -> String {
        switch field {
        case .string(let value): return value
        case nil: throw CryptoError(.missingClaim, "the VAPID JWT has no claim \(name)")
        default: throw CryptoError(.invalidClaim, "the VAPID claim \(name) is not a string")
        }
    }

    /// Whether `text` is a contact URI RFC 8292 §2.1 allows: `mailto:` or `https:`.
    private static func isContact(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return (lowered.hasPrefix("mailto:") || lowered.hasPrefix("https:")) && lowered.count > 7
    }

    /// Whether `text` is an origin: `scheme://host[:port]` without path, query or fragment.
    private static func isOrigin(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme, let host = components.host else {
            return false
        }
        return ["https", "http"].contains(scheme.lowercased()) && !host.isEmpty && components.path.isEmpty
            && components.query == nil && components.fragment == nil && components.user == nil
    }
}
