import LivelineCrypto
import Testing

struct ES256PublicKeyUncompressedTests {
    @Test func uncompressedPointRoundTrips() throws {
        let key = try ES256PrivateKey.generate()
        let point = key.publicKey.uncompressed
        #expect(point.count == 65)
        #expect(point.first == 0x04)
        let loaded = try ES256PublicKey(uncompressed: point)
        #expect(loaded.pem == key.publicKey.pem)
        #expect(loaded.uncompressed == point)
        let message = Array("signed".utf8)
        #expect(loaded.verify(signature: try key.sign(message), message: message))
    }

    @Test func keyReadInCompressedFormStillGivesTheUncompressedPoint() throws {
        let key = try ES256PrivateKey.generate()
        let folder = try TemporaryFolder()
        let file = try folder.write(key.publicKey.pem, to: "public.pem")
        let compressed = try ExternalProcess.run("openssl", ["ec", "-pubin", "-in", file.path, "-conv_form", "compressed", "-pubout"])
        #expect(compressed.status == 0, "\(compressed.stderr)")
        #expect(compressed.stdout != key.publicKey.pem)
        #expect(try ES256PublicKey(pem: compressed.stdout).uncompressed == key.publicKey.uncompressed)
    }

    @Test func pointsThatAreNotOnP256AreRefused() throws {
        var offCurve = try RFC8291Vector.bytes(RFC8291Vector.userAgentPublic)
        offCurve[64] ^= 0x01
        let beyondField = [0x04] + [UInt8](repeating: 0xff, count: 64)
        let zero = [0x04] + [UInt8](repeating: 0, count: 64)
        for point in [offCurve, beyondField, zero] {
            let error = #expect(throws: CryptoError.self) { try ES256PublicKey(uncompressed: point) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains("not a point on P-256") == true, "\(String(describing: error))")
        }
    }

    @Test func otherLengthsAndFormsAreRefusedNamingTheProblem() throws {
        let point = try ES256PrivateKey.generate().publicKey.uncompressed
        let compressed = [0x02 | (point[64] & 1)] + Array(point[1...32])
        let cases: [([UInt8], String)] = [
            (Array(point.dropFirst()), "64 bytes"),
            (point + [0], "66 bytes"),
            ([], "0 bytes"),
            (compressed, "compressed"),
            ([0x05] + point.dropFirst(), "starts with 0x05"),
            ([0x02] + point.dropFirst(), "starts with 0x02"),
        ]
        for (bytes, says) in cases {
            let error = #expect(throws: CryptoError.self) { try ES256PublicKey(uncompressed: bytes) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains(says) == true, "\(says): \(String(describing: error))")
        }
    }
}
