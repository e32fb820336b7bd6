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

    @Test func base64URLMatchesRFC4648AtEveryLength() {
        // RFC 4648 §10, in the URL alphabet without padding; with padding it decodes the same.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
            let padded = encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
            #expect(Base64URL.decode(padded) == Array(plain.utf8))
        }
        // Bytes whose encoding holds both characters that differ from base64's alphabet.
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        for length in 0..<70 {
            let bytes = SecureRandom.bytes(length)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "length \(length)")
        }
    }

    @Test func base64URLRefusesWhatIsNotBase64URL() {
        // A lone sixth bit, a character of neither alphabet, text after padding, too much padding.
        for text in ["a", "abcde", "ab$c", "ab c", "Zg=a", "Zg===", "Zm9v==", "=", "Zm9v\n"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
    }
}
