import Foundation
import LivelineCrypto
import Testing

struct VAPIDTests {
    private let audience = "https://push.example.net"
    private let subject = "mailto:push@example.com"
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// An `Authorization` value with the given JWT header and claims (JSON text), signed by `key`.
    private func forged(header: String = #"{"typ":"JWT","alg":"ES256"}"#, claims: String, key: ES256PrivateKey) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let token = input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
        return "vapid t=\(token), k=\(Base64URL.encode(key.publicKey.uncompressed))"
    }

    private func refusal(_ authorization: String) -> CryptoError? {
        #expect(throws: CryptoError.self) { try VAPID.verify(authorization: authorization, audience: audience, now: now) }
    }

    @Test func authorizationVerifies() throws {
        let key = try ES256PrivateKey.generate()
        let header = try VAPID.authorization(audience: audience, subject: subject, expiresAt: now + 12 * 3600 + 0.9, key: key)
        let claims = try VAPID.verify(authorization: header, audience: audience, now: now)
        #expect(
            claims
                == VAPIDClaims(
                    audience: audience, subject: subject, expiresAt: Date(timeIntervalSince1970: 1_800_043_200), publicKey: key.publicKey.uncompressed
                ))

        // vapid t=<header.claims.signature>, k=<the 65-byte key>, with the JSON of RFC 8292 §2.
        let match = try #require(header.wholeMatch(of: /vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)/))
        #expect(String(decoding: try #require(Base64URL.decode(String(match.1))), as: UTF8.self) == #"{"typ":"JWT","alg":"ES256"}"#)
        #expect(
            String(decoding: try #require(Base64URL.decode(String(match.2))), as: UTF8.self)
                == #"{"aud":"https://push.example.net","exp":1800043200,"sub":"mailto:push@example.com"}"#)
        #expect(Base64URL.decode(String(match.3))?.count == 64)
        #expect(Base64URL.decode(String(match.4)) == key.publicKey.uncompressed)
    }

    @Test func parametersInAnyOrderAndQuotedAreRead() throws {
        let key = try ES256PrivateKey.generate()
        let header = try VAPID.authorization(audience: audience, subject: "https://example.com/contact", expiresAt: now + 60, key: key)
        let parts = header.dropFirst("vapid ".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let t = parts[0].dropFirst(2)
        let k = parts[1].dropFirst(2)
        for variant in ["Vapid k=\(k),t=\(t)", "vapid  t=\"\(t)\" ,  k=\"\(k)\"  "] {
            #expect(try VAPID.verify(authorization: variant, audience: audience, now: now).subject == "https://example.com/contact")
        }
    }

    @Test func expiryWindowIsAfterNowAndAtMost24HoursAhead() throws {
        let key = try ES256PrivateKey.generate()
        func check(_ expiresAt: Date) throws -> VAPIDClaims {
            try VAPID.verify(
                authorization: try VAPID.authorization(audience: audience, subject: subject, expiresAt: expiresAt, key: key), audience: audience,
                now: now)
        }
        #expect(try check(now + 24 * 3600).expiresAt == now + 24 * 3600)
        #expect(try check(now + 1).expiresAt == now + 1)

        let tooLate = #expect(throws: CryptoError.self) { try check(now + 24 * 3600 + 1) }
        #expect(tooLate?.code == .invalidClaim)
        #expect(tooLate?.message.contains("exp is more than 24 hours") == true, "\(String(describing: tooLate))")
        for expired in [now, now - 1, now - 86_400] {
            let error = #expect(throws: CryptoError.self) { try check(expired) }
            #expect(error?.code == .invalidClaim)
            #expect(error?.message.contains("exp is not after now: the token has expired") == true, "\(String(describing: error))")
        }
    }

    @Test func wrongAudienceIsRefused() throws {
        let key = try ES256PrivateKey.generate()
        let header = try VAPID.authorization(audience: "https://other.example.net", subject: subject, expiresAt: now + 60, key: key)
        let error = refusal(header)
        #expect(error?.code == .invalidClaim)
        #expect(error?.message.contains("aud") == true, "\(String(describing: error))")
    }

    @Test func badOrMissingClaimsAreRefusedNamingTheClaim() throws {
        let key = try ES256PrivateKey.generate()
        let cases: [(String, CryptoError.Code, String)] = [
            (#"{"aud":"https://push.example.net","exp":1800000060,"sub":"push@example.com"}"#, .invalidClaim, "claim sub"),
            (#"{"aud":"https://push.example.net","exp":1800000060,"sub":"http://example.com"}"#, .invalidClaim, "claim sub"),
            (#"{"aud":"https://push.example.net","exp":1800000060}"#, .missingClaim, "claim sub"),
            (#"{"aud":"https://push.example.net","sub":"mailto:a@b.c"}"#, .missingClaim, "claim exp"),
            (#"{"aud":"https://push.example.net","exp":"1800000060","sub":"mailto:a@b.c"}"#, .invalidClaim, "claim exp"),
            (#"{"exp":1800000060,"sub":"mailto:a@b.c"}"#, .missingClaim, "claim aud"),
            (#"{"aud":["https://push.example.net"],"exp":1800000060,"sub":"mailto:a@b.c"}"#, .invalidClaim, "claim aud"),
        ]
        for (claims, code, says) in cases {
            let error = refusal(try forged(claims: claims, key: key))
            #expect(error?.code == code, "\(claims): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(claims): \(String(describing: error))")
        }
        let good = #"{"aud":"https://push.example.net","exp":1800000060,"sub":"mailto:a@b.c"}"#
        #expect(try VAPID.verify(authorization: try forged(claims: good, key: key), audience: audience, now: now).subject == "mailto:a@b.c")
        let hs256 = refusal(try forged(header: #"{"typ":"JWT","alg":"HS256"}"#, claims: good, key: key))
        #expect(hs256?.code == .unsupportedAlgorithm)
    }

    @Test func tamperedSignatureOrAnotherKeysKIsRefused() throws {
        let key = try ES256PrivateKey.generate()
        let header = try VAPID.authorization(audience: audience, subject: subject, expiresAt: now + 60, key: key)
        let k = "k=" + Base64URL.encode(key.publicKey.uncompressed)

        let otherK = "k=" + Base64URL.encode(try ES256PrivateKey.generate().publicKey.uncompressed)
        let byOther = refusal(header.replacingOccurrences(of: k, with: otherK))
        #expect(byOther?.code == .invalidSignature)
        #expect(byOther?.message.contains("signature does not verify with the public key k") == true)

        let token = String(header.dropFirst("vapid t=".count).prefix { $0 != "," })
        var signature = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        signature[40] ^= 0x01
        let tamperedToken = token.split(separator: ".")[0...1].joined(separator: ".") + "." + Base64URL.encode(signature)
        let tampered = refusal("vapid t=\(tamperedToken), \(k)")
        #expect(tampered?.code == .invalidSignature)
        #expect(tampered?.message.contains("signature") == true)

        // Claims changed after signing (a later exp) do not verify either.
        let claims = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        let later = String(decoding: claims, as: UTF8.self).replacingOccurrences(of: "1800000060", with: "1800000099")
        let parts = token.split(separator: ".")
        let edited = refusal("vapid t=\(parts[0]).\(Base64URL.encode(Array(later.utf8))).\(parts[2]), \(k)")
        #expect(edited?.code == .invalidSignature)
    }

    @Test func malformedHeadersAreRefused() throws {
        let key = try ES256PrivateKey.generate()
        let header = try VAPID.authorization(audience: audience, subject: subject, expiresAt: now + 60, key: key)
        let token = String(header.dropFirst("vapid t=".count).prefix { $0 != "," })
        let k = Base64URL.encode(key.publicKey.uncompressed)
        let cases: [(String, CryptoError.Code, String)] = [
            ("", .malformedToken, "vapid t=…, k=…"),
            ("Bearer \(token)", .malformedToken, "vapid t=…, k=…"),
            ("WebPush \(token)", .malformedToken, "vapid t=…, k=…"),
            ("vapid t=\(token)", .malformedToken, "no parameter k"),
            ("vapid k=\(k)", .malformedToken, "no parameter t"),
            ("vapid t=\(token), t=\(token), k=\(k)", .malformedToken, "appears twice"),
            ("vapid t=\(token), k", .malformedToken, "no ="),
            ("vapid t=\(token), k=\(k.dropLast(4))", .invalidKey, "k is not a P-256 public key: the public key is 62 bytes"),
            ("vapid t=\(token), k=\(Base64URL.encode([0x04] + [UInt8](repeating: 1, count: 64)))", .invalidKey, "not a point on P-256"),
            ("vapid t=\(token), k=not+base64", .invalidKey, "k is not base64url"),
            ("vapid t=\(token.split(separator: ".").prefix(2).joined(separator: ".")), k=\(k)", .malformedToken, "3 dot-separated parts"),
        ]
        for (value, code, says) in cases {
            let error = refusal(value)
            #expect(error?.code == code, "\(value): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(says): \(String(describing: error))")
        }
    }

    @Test func authorizationRefusesAnAudienceThatIsNotAnOriginOrASubjectThatIsNotAContact() throws {
        let key = try ES256PrivateKey.generate()
        for audience in ["", "push.example.net", "https://push.example.net/wpush/v2/abc", "https://push.example.net?x=1", "ftp://push.example.net"] {
            let error = #expect(throws: CryptoError.self) {
                try VAPID.authorization(audience: audience, subject: subject, expiresAt: now, key: key)
            }
            #expect(error?.code == .invalidArgument, "\(audience)")
        }
        #expect(try VAPID.authorization(audience: "http://127.0.0.1:8443", subject: subject, expiresAt: now, key: key).hasPrefix("vapid t="))
        for subject in ["", "push@example.com", "mailto:", "http://example.com"] {
            let error = #expect(throws: CryptoError.self) {
                try VAPID.authorization(audience: audience, subject: subject, expiresAt: now, key: key)
            }
            #expect(error?.code == .invalidArgument, "\(subject)")
        }
    }
}
