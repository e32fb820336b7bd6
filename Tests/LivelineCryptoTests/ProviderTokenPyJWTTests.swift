import Foundation
import LivelineCrypto
import Testing

/// Cross-checks `ProviderToken` against an independent implementation: PyJWT (with `cryptography`)
/// in the test virtualenv `.venv` (`scripts/test-venv.sh`). These tests fail, not skip, without it.
struct ProviderTokenPyJWTTests {
    @Test func tokensSignedBySwiftVerifyWithPyJWT() throws {
        let key = try ES256PrivateKey.generate()
        let now = Int(Date().timeIntervalSince1970)
        var tokens: [String] = []
        // 200 tokens, plus at least one whose r or s has a leading zero byte (padding).
        var padded = 0
        var index = 0
        while (tokens.count < 200 || padded == 0) && index < 5_000 {
            let token = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: now - index, key: key)
            let signature = try #require(Base64URL.decode(String(token.compact.split(separator: ".")[2])))
            let hasZero = signature[0] == 0 || signature[32] == 0
            if hasZero { padded += 1 }
            if tokens.count < 200 || hasZero { tokens.append(token.compact) }
            index += 1
        }
        #expect(padded > 0)
        let tampered = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: now, key: key).compact
        let tamperedParts = tampered.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Array(#"{"iat":\#(now),"iss":"EVILTEAM00"}"#.utf8))

        let script = """
            import json, sys, jwt
            data = json.load(sys.stdin)
            verified, headers_ok, claims_ok = 0, 0, 0
            for token in data["tokens"]:
                header = jwt.get_unverified_header(token)
                claims = jwt.decode(token, data["public_key"], algorithms=["ES256"])
                verified += 1
                headers_ok += header == {"alg": "ES256", "kid": "ABC123DEFG"}
                claims_ok += set(claims) == {"iss", "iat"} and claims["iss"] == "DEF123GHIJ" and isinstance(claims["iat"], int)
            def rejected(token):
                try:
                    jwt.decode(token, data["public_key"], algorithms=["ES256"])
                    return False
                except jwt.InvalidSignatureError:
                    return True
            print(json.dumps({"verified": verified, "headers_ok": headers_ok, "claims_ok": claims_ok,
                              "forged_rejected": rejected(data["forged"]), "version": jwt.__version__}))
            """
        let result = try PythonPeer.run(
            script,
            input: [
                "tokens": tokens,
                "public_key": key.publicKey.pem,
                "forged": tamperedParts[0] + "." + forgedClaims + "." + tamperedParts[2],
            ])
        #expect(result["verified"] as? Int == tokens.count)
        #expect(result["headers_ok"] as? Int == tokens.count)
        #expect(result["claims_ok"] as? Int == tokens.count)
        #expect(result["forged_rejected"] as? Bool == true)
    }

    @Test func tokensSignedByPyJWTVerifyInSwift() throws {
        let swiftKey = try ES256PrivateKey.generate()
        let now = Int(Date().timeIntervalSince1970)
        let script = """
            import json, sys, jwt
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            data = json.load(sys.stdin)
            key = ec.generate_private_key(ec.SECP256R1())
            private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()).decode()
            public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                                       serialization.PublicFormat.SubjectPublicKeyInfo).decode()
            def sign(claims, signer):
                return jwt.encode(claims, signer, algorithm="ES256", headers={"kid": "ABC123DEFG"})
            tokens, padded, i = [], 0, 0
            while (len(tokens) < 200 or padded == 0) and i < 5000:
                token = sign({"iss": "DEF123GHIJ", "iat": data["now"] - i}, key)
                signature = jwt.utils.base64url_decode(token.split(".")[2])
                has_zero = signature[0] == 0 or signature[32] == 0
                padded += has_zero
                if len(tokens) < 200 or has_zero:
                    tokens.append(token)
                i += 1
            print(json.dumps({
                "tokens": tokens, "padded": padded, "private_key": private_pem, "public_key": public_pem,
                "string_iat": sign({"iss": "DEF123GHIJ", "iat": str(data["now"])}, key),
                "by_swift_key": sign({"iss": "DEF123GHIJ", "iat": data["now"]}, data["swift_private_key"]),
            }))
            """
        let result = try PythonPeer.run(script, input: ["now": now, "swift_private_key": swiftKey.pkcs8PEM])
        let tokens = try #require(result["tokens"] as? [String])
        #expect(tokens.count >= 200)
        #expect((result["padded"] as? Int ?? 0) > 0)
        let publicKey = try ES256PublicKey(pem: try #require(result["public_key"] as? String))
        let privateKey = try ES256PrivateKey(pem: try #require(result["private_key"] as? String))
        #expect(privateKey.publicKey.pem == publicKey.pem)

        var verified = 0
        for (index, compact) in tokens.enumerated() {
            let token = try ProviderToken.parse(compact)  // PyJWT adds "typ": "JWT" to the header
            #expect(token.keyID == "ABC123DEFG")
            #expect(token.teamID == "DEF123GHIJ")
            if index < 200 { #expect(token.issuedAt == now - index) }
            if token.verify(with: publicKey) { verified += 1 }
            #expect(!token.verify(with: swiftKey.publicKey))
        }
        #expect(verified == tokens.count)

        let stringIAT = try ProviderToken.parse(try #require(result["string_iat"] as? String))
        #expect(stringIAT.issuedAt == now)
        #expect(stringIAT.verify(with: publicKey))

        // PyJWT loaded the PKCS#8 PEM Swift wrote, and signed with it.
        let bySwiftKey = try ProviderToken.parse(try #require(result["by_swift_key"] as? String))
        #expect(bySwiftKey.verify(with: swiftKey.publicKey))
    }
}
