import LivelineCrypto
import Testing

struct HKDFTests {
    private let ikm = [UInt8](repeating: 0x0b, count: 22)

    @Test func rfc5869TestCase1() throws {
        let okm = try HKDF.sha256(salt: Array(0x00...0x0c), inputKeyMaterial: ikm, info: Array(0xf0...0xf9), length: 42)
        #expect(Hex.encode(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func rfc5869TestCase3WithoutSaltAndInfo() throws {
        let okm = try HKDF.sha256(salt: [], inputKeyMaterial: ikm, info: [], length: 42)
        #expect(Hex.encode(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
        // No salt is a salt of 32 zero bytes (RFC 5869 §2.2).
        #expect(try HKDF.sha256(salt: [UInt8](repeating: 0, count: 32), inputKeyMaterial: ikm, info: [], length: 42) == okm)
    }

    @Test func lengthsOutsideOneTo8160AreRefused() throws {
        let longest = try HKDF.sha256(salt: [1], inputKeyMaterial: ikm, info: [2], length: 8160)
        #expect(longest.count == 8160)
        // A shorter output is a prefix of a longer one.
        #expect(try HKDF.sha256(salt: [1], inputKeyMaterial: ikm, info: [2], length: 1) == Array(longest.prefix(1)))
        for length in [0, -1, 8161] {
            let error = #expect(throws: CryptoError.self) { try HKDF.sha256(salt: [1], inputKeyMaterial: ikm, info: [2], length: length) }
            #expect(error?.code == .invalidArgument)
        }
    }
}
