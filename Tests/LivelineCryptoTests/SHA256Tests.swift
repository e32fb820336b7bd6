import LivelineCrypto
import Testing

struct SHA256Tests {
    @Test func digestMatchesKnownVectors() {
        // FIPS 180-2 examples.
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func randomTokensDifferAndUseBase64URL() {
        let a = SecureRandom.token(prefix: "ll_")
        let b = SecureRandom.token(prefix: "ll_")
        #expect(a != b)
        #expect(a.hasPrefix("ll_"))
        #expect(Base64URL.decode(String(a.dropFirst(3)))?.count == 32)
    }

    @Test func base64URLRoundTripsAndRejectsOtherAlphabets() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xfe, 0x00, 0x10]
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("+") && !text.contains("/") && !text.contains("="))
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode("a+b/") == nil)
    }
}
