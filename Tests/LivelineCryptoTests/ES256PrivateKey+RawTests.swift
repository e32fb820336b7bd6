import Foundation
import LivelineCrypto
import Testing

struct ES256PrivateKeyRawTests {
    @Test func rawScalarRoundTrips() throws {
        let key = try ES256PrivateKey.generate()
        let raw = key.rawPrivateKey
        #expect(raw.count == 32)
        let loaded = try ES256PrivateKey(rawPrivateKey: raw)
        #expect(loaded.rawPrivateKey == raw)
        #expect(loaded.publicKey.pem == key.publicKey.pem)
        // It signs, and what it signs verifies with the original's public key.
        let message = Array("raw".utf8)
        #expect(key.publicKey.verify(signature: try loaded.sign(message), message: message))
        // And it survives PKCS#8 PEM.
        #expect(try ES256PrivateKey(pem: loaded.pkcs8PEM).rawPrivateKey == raw)
    }

    @Test func rfc8291KeysGiveTheirPublicKeys() throws {
        for (privateKey, publicKey) in [
            (RFC8291Vector.userAgentPrivate, RFC8291Vector.userAgentPublic), (RFC8291Vector.senderPrivate, RFC8291Vector.senderPublic),
        ] {
            let key = try ES256PrivateKey(rawPrivateKey: RFC8291Vector.bytes(privateKey))
            #expect(Base64URL.encode(key.publicKey.uncompressed) == publicKey)
            #expect(Base64URL.encode(key.rawPrivateKey) == privateKey)
        }
    }

    @Test func scalarsOfOtherLengthsOrOutOfRangeAreRefused() throws {
        let order = "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"
        let orderBytes = stride(from: 0, to: order.count, by: 2).map { offset in
            UInt8(order.dropFirst(offset).prefix(2), radix: 16)!
        }
        var orderMinusOne = orderBytes
        orderMinusOne[31] -= 1
        _ = try ES256PrivateKey(rawPrivateKey: orderMinusOne)  // the largest valid scalar
        _ = try ES256PrivateKey(rawPrivateKey: [UInt8](repeating: 0, count: 31) + [1])  // the smallest

        let cases: [([UInt8], String)] = [
            (SecureRandom.bytes(31), "31 bytes"),
            (SecureRandom.bytes(33), "33 bytes"),
            ([UInt8](repeating: 0, count: 32), "0 or not below the order"),
            (orderBytes, "0 or not below the order"),
            ([UInt8](repeating: 0xff, count: 32), "0 or not below the order"),
        ]
        for (bytes, says) in cases {
            let error = #expect(throws: CryptoError.self) { try ES256PrivateKey(rawPrivateKey: bytes) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains(says) == true, "\(says): \(String(describing: error))")
        }
    }

    @Test func sharedSecretIsTheSameOnBothSides() throws {
        let a = try ES256PrivateKey.generate()
        let b = try ES256PrivateKey.generate()
        let secret = try a.sharedSecret(with: b.publicKey)
        #expect(secret.count == 32)
        #expect(try b.sharedSecret(with: a.publicKey) == secret)
        #expect(try a.sharedSecret(with: try ES256PrivateKey.generate().publicKey) != secret)
    }

    @Test func sharedSecretMatchesTheOpenSSLCommandLine() throws {
        let ours = try ES256PrivateKey.generate()
        let peer = try ES256PrivateKey.generate()
        let folder = try TemporaryFolder()
        let keyFile = try folder.write(ours.pkcs8PEM, to: "ours.pem")
        let peerFile = try folder.write(peer.publicKey.pem, to: "peer.pem")
        let secretFile = folder.url.appendingPathComponent("secret")
        let derived = try ExternalProcess.run(
            "openssl", ["pkeyutl", "-derive", "-inkey", keyFile.path, "-peerkey", peerFile.path, "-out", secretFile.path])
        #expect(derived.status == 0, "\(derived.stderr)")
        let expected = try [UInt8](Data(contentsOf: secretFile))
        #expect(try ours.sharedSecret(with: peer.publicKey) == expected)
    }
}
