import Foundation
import LivelineCrypto
import Testing

struct ES256PublicKeyTests {
    private let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)

    @Test func pemRoundTrips() throws {
        let key = try ES256PrivateKey.generate()
        let pem = key.publicKey.pem
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let loaded = try ES256PublicKey(pem: pem)
        #expect(loaded.pem == pem)
        #expect(loaded.verify(signature: try key.sign(message), message: message))
    }

    @Test func tamperedMessageFails() throws {
        let key = try ES256PrivateKey.generate()
        let signature = try key.sign(message)
        var tampered = message
        tampered[5] ^= 0x01
        #expect(!key.publicKey.verify(signature: signature, message: tampered))
        #expect(!key.publicKey.verify(signature: signature, message: message + [0]))
        #expect(!key.publicKey.verify(signature: signature, message: []))
    }

    @Test func tamperedSignatureFails() throws {
        let key = try ES256PrivateKey.generate()
        let signature = try key.sign(message)
        for index in [0, 31, 32, 63] {
            var tampered = signature
            tampered[index] ^= 0x80
            #expect(!key.publicKey.verify(signature: tampered, message: message))
        }
        // r‖s swapped, all zeros, all ones.
        #expect(!key.publicKey.verify(signature: Array(signature[32...] + signature[..<32]), message: message))
        #expect(!key.publicKey.verify(signature: [UInt8](repeating: 0, count: 64), message: message))
        #expect(!key.publicKey.verify(signature: [UInt8](repeating: 0xff, count: 64), message: message))
    }

    @Test(arguments: [0, 1, 63, 65, 70, 72, 128])
    func signatureOfAnyOtherLengthFails(length: Int) throws {
        let key = try ES256PrivateKey.generate()
        let signature = try key.sign(message)
        let resized = Array((signature + signature + signature).prefix(length))
        #expect(!key.publicKey.verify(signature: resized, message: message))
    }

    @Test func derSignatureIsNotAccepted() throws {
        // A DER ECDSA-Sig-Value (what `openssl dgst -sign` writes) is not a JOSE signature.
        let key = try ES256PrivateKey.generate()
        let folder = try TemporaryFolder()
        let keyFile = try folder.write(key.pkcs8PEM, to: "key.pem")
        let messageFile = try folder.write(String(decoding: message, as: UTF8.self), to: "message")
        let sigFile = folder.url.appendingPathComponent("sig.der")
        let output = try ExternalProcess.run("openssl", ["dgst", "-sha256", "-sign", keyFile.path, "-out", sigFile.path, messageFile.path])
        #expect(output.status == 0, "\(output.stderr)")
        let der = try [UInt8](Data(contentsOf: sigFile))
        #expect(!key.publicKey.verify(signature: der, message: message))
    }

    @Test func signatureFromAnotherKeyFails() throws {
        let key = try ES256PrivateKey.generate()
        let other = try ES256PrivateKey.generate()
        #expect(!key.publicKey.verify(signature: try other.sign(message), message: message))
    }

    @Test func garbageAndPrivatePEMsAreRefused() throws {
        let key = try ES256PrivateKey.generate()
        let body = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEGARBAGEGARBAGE"
        for pem in ["", "garbage", "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----\n", key.pkcs8PEM] {
            let error = #expect(throws: CryptoError.self) { try ES256PublicKey(pem: pem) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains("GARBAGE") == false)
            #expect(error?.message.contains("PRIVATE KEY-----\nMI") == false)
        }
    }

    @Test func p384PublicKeyIsRefused() throws {
        let folder = try TemporaryFolder()
        let p384 = try ExternalProcess.run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        let file = try folder.write(p384.stdout, to: "p384.pem")
        let pub = try ExternalProcess.run("openssl", ["pkey", "-in", file.path, "-pubout"])
        #expect(pub.stdout.contains("BEGIN PUBLIC KEY"))
        let error = #expect(throws: CryptoError.self) { try ES256PublicKey(pem: pub.stdout) }
        #expect(error?.code == .invalidKey)
    }
}
