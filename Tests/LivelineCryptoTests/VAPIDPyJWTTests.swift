import Foundation
import LivelineCrypto
import Testing

/// Cross-checks `VAPID` against an independent implementation: PyJWT (with `cryptography`) in the
/// test virtualenv `.venv` (`scripts/test-venv.sh`), reading the public key from `k` as a push
/// service does. These tests fail, not skip, without it.
struct VAPIDPyJWTTests {
    private let audience = "https://push.example.net"

    @Test func authorizationFromSwiftVerifiesWithPyJWT() throws {
        let key = try ES256PrivateKey.generate()
        let expiresAt = Date().addingTimeInterval(12 * 3600)
        let header = try VAPID.authorization(audience: audience, subject: "mailto:push@example.com", expiresAt: expiresAt, key: key)
        let tampered = try VAPID.authorization(
            audience: audience, subject: "mailto:push@example.com", expiresAt: expiresAt, key: try ES256PrivateKey.generate())
        let script = """
            import json, sys, jwt
            from cryptography.hazmat.primitives.asymmetric import ec
            data = json.load(sys.stdin)
            def parse(header):
                scheme, _, rest = header.partition(" ")
                params = dict(part.strip().split("=", 1) for part in rest.split(","))
                return scheme, params["t"], jwt.utils.base64url_decode(params["k"])
            scheme, token, k = parse(data["header"])
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), k)
            claims = jwt.decode(token, key, algorithms=["ES256"], audience=data["audience"],
                                options={"require": ["aud", "exp", "sub"]})
            _, other_token, _ = parse(data["other"])
            try:
                jwt.decode(other_token, key, algorithms=["ES256"], audience=data["audience"])
                other_rejected = False
            except jwt.InvalidSignatureError:
                other_rejected = True
            print(json.dumps({"scheme": scheme, "header": jwt.get_unverified_header(token), "claims": claims,
                              "other_rejected": other_rejected}))
            """
        let result = try PythonPeer.run(script, input: ["header": header, "audience": audience, "other": tampered])
        #expect(result["scheme"] as? String == "vapid")
        #expect(result["header"] as? [String: String] == ["typ": "JWT", "alg": "ES256"])
        let claims = try #require(result["claims"] as? [String: Any])
        #expect(claims["aud"] as? String == audience)
        #expect(claims["sub"] as? String == "mailto:push@example.com")
        #expect(claims["exp"] as? Int == Int(expiresAt.timeIntervalSince1970))
        #expect(result["other_rejected"] as? Bool == true)
    }

    @Test func tokenFromPyJWTVerifiesInSwift() throws {
        let now = Date()
        let script = """
            import json, sys, jwt
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            data = json.load(sys.stdin)
            key = ec.generate_private_key(ec.SECP256R1())
            k = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            token = jwt.encode({"aud": data["audience"], "exp": data["exp"], "sub": "https://example.com/ops"}, key, algorithm="ES256")
            print(json.dumps({"header": "vapid t=%s, k=%s" % (token, jwt.utils.base64url_encode(k).decode())}))
            """
        let exp = Int(now.timeIntervalSince1970) + 3600
        let result = try PythonPeer.run(script, input: ["audience": audience, "exp": exp])
        let header = try #require(result["header"] as? String)
        let claims = try VAPID.verify(authorization: header, audience: audience, now: now)
        #expect(claims.subject == "https://example.com/ops")
        #expect(claims.expiresAt == Date(timeIntervalSince1970: Double(exp)))
        #expect(claims.publicKey.count == 65)
    }
}
