import Foundation
import LivelineCrypto
import Testing

struct ES256PrivateKeyTests {
    private let message = Array("header.claims".utf8)

    @Test func signatureIsSixtyFourBytesAndVerifies() throws {
        let key = try ES256PrivateKey.generate()
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verify(signature: signature, message: message))
        // ECDSA is randomized: two signatures differ, both verify.
        let again = try key.sign(message)
        #expect(again != signature)
        #expect(key.publicKey.verify(signature: again, message: message))
    }

    @Test func emptyAndLargeMessagesSignAndVerify() throws {
        let key = try ES256PrivateKey.generate()
        for input in [[UInt8](), SecureRandom.bytes(1 << 20)] {
            let signature = try key.sign(input)
            #expect(signature.count == 64)
            #expect(key.publicKey.verify(signature: signature, message: input))
        }
    }

    @Test func shortRAndSArePaddedToThirtyTwoBytes() throws {
        // About 1 in 128 signatures has r or s below 2^248; sign until one does, so the padding
        // path (BN_bn2binpad) is exercised every run.
        let key = try ES256PrivateKey.generate()
        var found = false
        for index in 0..<5_000 {
            let input = Array("message \(index)".utf8)
            let signature = try key.sign(input)
            #expect(signature.count == 64)
            if signature[0] == 0 || signature[32] == 0 {
                #expect(key.publicKey.verify(signature: signature, message: input))
                found = true
                break
            }
        }
        #expect(found)
    }

    @Test func pkcs8PEMRoundTrips() throws {
        let key = try ES256PrivateKey.generate()
        let pem = key.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let loaded = try ES256PrivateKey(pem: pem)
        #expect(loaded.pkcs8PEM == pem)
        #expect(loaded.publicKey.pem == key.publicKey.pem)
        // A signature by the reloaded key verifies with the original public key.
        #expect(key.publicKey.verify(signature: try loaded.sign(message), message: message))
    }

    @Test func opensslCLIReadsOurPKCS8() throws {
        let key = try ES256PrivateKey.generate()
        let folder = try TemporaryFolder()
        let file = try folder.write(key.pkcs8PEM, to: "AuthKey_TEST.p8")
        let output = try ExternalProcess.run("openssl", ["pkey", "-in", file.path, "-pubout"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == key.publicKey.pem)
    }

    @Test func loadsSEC1ECPrivateKeyFromOpenSSLCLI() throws {
        let output = try ExternalProcess.run("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("-----BEGIN EC PRIVATE KEY-----"))
        let key = try ES256PrivateKey(pem: output.stdout)
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(key.publicKey.verify(signature: try key.sign(message), message: message))
    }

    @Test func loadsPKCS8FromOpenSSLCLI() throws {
        // An Apple-style .p8 key (PKCS#8, P-256) as OpenSSL's command line makes one.
        let output = try ExternalProcess.run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        #expect(output.status == 0, "\(output.stderr)")
        let key = try ES256PrivateKey(pem: output.stdout)
        #expect(key.pkcs8PEM == output.stdout)
    }

    @Test func garbagePEMIsRefusedWithoutEchoingIt() {
        let secret = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSECRETSECRETSECRET"
        let inputs = [
            "",
            "not a key at all",
            "-----BEGIN PRIVATE KEY-----\n\(secret)\n-----END PRIVATE KEY-----\n",
            "-----BEGIN EC PRIVATE KEY-----\n\(secret)\n-----END EC PRIVATE KEY-----\n",
        ]
        for pem in inputs {
            let error = #expect(throws: CryptoError.self) { try ES256PrivateKey(pem: pem) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains("SECRET") == false)
            #expect(error?.description.contains("MIGHAgEA") == false)
        }
    }

    @Test func otherCurvesAndAlgorithmsAreRefused() throws {
        let p384 = try ExternalProcess.run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        let ed25519 = try ExternalProcess.run("openssl", ["genpkey", "-algorithm", "ed25519"])
        for (pem, expected) in [(p384.stdout, "secp384r1"), (ed25519.stdout, "not an EC key")] {
            #expect(pem.contains("BEGIN PRIVATE KEY"))
            let error = #expect(throws: CryptoError.self) { try ES256PrivateKey(pem: pem) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    @Test func encryptedKeyIsRefusedWithoutPrompting() throws {
        let key = try ES256PrivateKey.generate()
        let encrypted = try ExternalProcess.run(
            "openssl", ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:secret"], input: key.pkcs8PEM
        )
        #expect(encrypted.stdout.contains("BEGIN ENCRYPTED PRIVATE KEY"), "\(encrypted.stderr)")
        let error = #expect(throws: CryptoError.self) { try ES256PrivateKey(pem: encrypted.stdout) }
        #expect(error?.code == .invalidKey)
    }

    @Test func loadsFromFile() throws {
        let key = try ES256PrivateKey.generate()
        let folder = try TemporaryFolder()
        let file = try folder.write(key.pkcs8PEM, to: "AuthKey_ABC123DEFG.p8")
        let loaded = try ES256PrivateKey(contentsOf: file)
        #expect(loaded.publicKey.pem == key.publicKey.pem)
    }

    @Test func fileErrorsNameThePathNotTheContent() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("missing.p8")
        let unreadable = #expect(throws: CryptoError.self) { try ES256PrivateKey(contentsOf: missing) }
        #expect(unreadable?.code == .unreadableFile)
        #expect(unreadable?.message.contains(missing.path) == true, "\(String(describing: unreadable))")

        let garbage = try folder.write("-----BEGIN PRIVATE KEY-----\nTOPSECRETBYTES\n-----END PRIVATE KEY-----\n", to: "bad.p8")
        let invalid = #expect(throws: CryptoError.self) { try ES256PrivateKey(contentsOf: garbage) }
        #expect(invalid?.code == .invalidKey)
        #expect(invalid?.message.contains(garbage.path) == true)
        #expect(invalid?.message.contains("TOPSECRET") == false)

        let binary = folder.url.appendingPathComponent("binary.p8")
        try Data([0xff, 0xfe, 0x00, 0x80]).write(to: binary)
        let notText = #expect(throws: CryptoError.self) { try ES256PrivateKey(contentsOf: binary) }
        #expect(notText?.code == .invalidKey)
    }

    @Test func keyIsUsableFromManyTasksAtOnce() async throws {
        let key = try ES256PrivateKey.generate()
        let message = self.message
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ok = true
                    for _ in 0..<50 {
                        let signature = try key.sign(message)
                        ok = ok && key.publicKey.verify(signature: signature, message: message)
                    }
                    return ok
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
