import Foundation
import LivelineCrypto
import Testing

/// Cross-checks `WebPushPayload` against an independent implementation of RFC 8188/8291: the
/// `http_ece` package (with `cryptography`) in the test virtualenv `.venv`
/// (`scripts/test-venv.sh`), the encryption library of pywebpush. These tests fail, not skip,
/// without it.
struct WebPushPayloadHTTPECETests {
    private let plaintexts: [[UInt8]] = [
        [], Array(#"{"aps":{"content-state":{"items":3}}}"#.utf8), SecureRandom.bytes(1_000), SecureRandom.bytes(WebPushPayload.maximumPlaintext),
    ]

    @Test func bodiesFromSwiftDecryptWithHTTPECE() throws {
        let browser = try ES256PrivateKey.generate()
        let secret = SecureRandom.bytes(16)
        let bodies = try plaintexts.map { try Base64URL.encode(WebPushPayload.encrypt($0, to: browser.publicKey, authSecret: secret)) }
        let script = """
            import base64, json, sys, http_ece
            from cryptography.hazmat.primitives.asymmetric import ec
            data = json.load(sys.stdin)
            def b(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            def e(raw): return base64.urlsafe_b64encode(raw).decode().rstrip("=")
            key = ec.derive_private_key(int.from_bytes(b(data["private_key"]), "big"), ec.SECP256R1())
            plaintexts = [e(http_ece.decrypt(b(body), private_key=key, auth_secret=b(data["auth"]))) for body in data["bodies"]]
            print(json.dumps({"plaintexts": plaintexts}))
            """
        let result = try PythonPeer.run(
            script, input: ["private_key": Base64URL.encode(browser.rawPrivateKey), "auth": Base64URL.encode(secret), "bodies": bodies])
        let decrypted = try #require(result["plaintexts"] as? [String])
        #expect(decrypted == plaintexts.map { Base64URL.encode($0) })
    }

    @Test func bodiesFromHTTPECEDecryptInSwift() throws {
        // Not the empty one: http_ece writes no record at all for it (a bare 86-byte header), which
        // RFC 8291 §4's single record rules out and `decrypt` refuses.
        let plaintexts = plaintexts.filter { !$0.isEmpty }
        let browser = try ES256PrivateKey.generate()
        let secret = SecureRandom.bytes(16)
        let script = """
            import base64, json, sys, http_ece
            from cryptography.hazmat.primitives.asymmetric import ec
            data = json.load(sys.stdin)
            def b(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            def e(raw): return base64.urlsafe_b64encode(raw).decode().rstrip("=")
            bodies = []
            for plaintext in data["plaintexts"]:
                sender = ec.generate_private_key(ec.SECP256R1())
                bodies.append(e(http_ece.encrypt(b(plaintext), private_key=sender, dh=b(data["public_key"]),
                                                 auth_secret=b(data["auth"]), rs=4096)))
            print(json.dumps({"bodies": bodies}))
            """
        let result = try PythonPeer.run(
            script,
            input: [
                "public_key": Base64URL.encode(browser.publicKey.uncompressed), "auth": Base64URL.encode(secret),
                "plaintexts": plaintexts.map { Base64URL.encode($0) },
            ])
        let bodies = try #require(result["bodies"] as? [String])
        #expect(bodies.count == plaintexts.count)
        for (body, plaintext) in zip(bodies, plaintexts) {
            let bytes = try #require(Base64URL.decode(body))
            #expect(bytes.count == 86 + plaintext.count + 17)
            #expect(try WebPushPayload.decrypt(bytes, with: browser, authSecret: secret) == plaintext)
        }
    }
}
