import LivelineCrypto
import Testing

struct AES128GCMTests {
    private let zeroKey = [UInt8](repeating: 0, count: 16)
    private let zeroNonce = [UInt8](repeating: 0, count: 12)

    /// Test cases 1 and 2 of "The Galois/Counter Mode of Operation (GCM)" (McGrew and Viega), the
    /// specification NIST SP 800-38D builds on: the all-zero key and IV.
    @Test func gcmSpecificationTestCases1And2() throws {
        #expect(Hex.encode(try AES128GCM.seal(key: zeroKey, nonce: zeroNonce, plaintext: [])) == "58e2fccefa7e3061367f1d57a4e7455a")
        let sealed = try AES128GCM.seal(key: zeroKey, nonce: zeroNonce, plaintext: [UInt8](repeating: 0, count: 16))
        #expect(Hex.encode(sealed) == "0388dace60b6a392f328c2b971b2fe78" + "ab6e47d42cec13bdf53a67b21257bddf")
        #expect(try AES128GCM.open(key: zeroKey, nonce: zeroNonce, sealed: sealed) == [UInt8](repeating: 0, count: 16))
    }

    @Test func sealThenOpenRoundTrips() throws {
        let key = SecureRandom.bytes(16)
        let nonce = SecureRandom.bytes(12)
        for length in [0, 1, 15, 16, 17, 4010] {
            let plaintext = SecureRandom.bytes(length)
            let sealed = try AES128GCM.seal(key: key, nonce: nonce, plaintext: plaintext)
            #expect(sealed.count == length + 16)
            #expect(try AES128GCM.open(key: key, nonce: nonce, sealed: sealed) == plaintext)
        }
    }

    @Test func tamperedTagCiphertextKeyOrNonceIsRefused() throws {
        let key = SecureRandom.bytes(16)
        let nonce = SecureRandom.bytes(12)
        let sealed = try AES128GCM.seal(key: key, nonce: nonce, plaintext: Array("the shopping list".utf8))
        var candidates: [(key: [UInt8], nonce: [UInt8], sealed: [UInt8])] = []
        for index in [0, 16, sealed.count - 16, sealed.count - 1] {  // ciphertext and tag bytes
            var tampered = sealed
            tampered[index] ^= 0x80
            candidates.append((key, nonce, tampered))
        }
        candidates.append((key, nonce, Array(sealed.dropLast())))
        candidates.append((SecureRandom.bytes(16), nonce, sealed))
        candidates.append((key, SecureRandom.bytes(12), sealed))
        candidates.append((key, nonce, Array(sealed.prefix(15))))
        for candidate in candidates {
            let error = #expect(throws: CryptoError.self) {
                try AES128GCM.open(key: candidate.key, nonce: candidate.nonce, sealed: candidate.sealed)
            }
            #expect(error?.code == .authenticationFailed, "\(String(describing: error))")
        }
    }

    @Test func keysAndNoncesOfOtherLengthsAreRefused() {
        for (key, nonce) in [(SecureRandom.bytes(15), zeroNonce), (SecureRandom.bytes(32), zeroNonce), (zeroKey, SecureRandom.bytes(16))] {
            let sealError = #expect(throws: CryptoError.self) { try AES128GCM.seal(key: key, nonce: nonce, plaintext: [1]) }
            #expect(sealError?.code == .invalidArgument)
            let openError = #expect(throws: CryptoError.self) { try AES128GCM.open(key: key, nonce: nonce, sealed: [UInt8](repeating: 0, count: 17)) }
            #expect(openError?.code == .invalidArgument)
        }
    }
}
