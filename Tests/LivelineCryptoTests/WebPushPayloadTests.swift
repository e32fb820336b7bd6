import LivelineCrypto
import Testing

struct WebPushPayloadTests {
    private typealias Vector = RFC8291Vector

    private var userAgentKey: ES256PrivateKey { get throws { try ES256PrivateKey(rawPrivateKey: Vector.bytes(Vector.userAgentPrivate)) } }
    private var senderKey: ES256PrivateKey { get throws { try ES256PrivateKey(rawPrivateKey: Vector.bytes(Vector.senderPrivate)) } }
    private var authSecret: [UInt8] { get throws { try Vector.bytes(Vector.authSecret) } }

    @Test func encryptReproducesRFC8291AppendixA() throws {
        let expected = try Vector.bytes(Vector.body)
        #expect(expected.count == 144)
        let body = try WebPushPayload.encrypt(
            Vector.plaintext, to: ES256PublicKey(uncompressed: Vector.bytes(Vector.userAgentPublic)), authSecret: authSecret,
            senderKey: senderKey, salt: Vector.bytes(Vector.salt))
        #expect(body.count == 144)
        #expect(Base64URL.encode(body) == Vector.body)
        #expect(try WebPushPayload.decrypt(expected, with: userAgentKey, authSecret: authSecret) == Vector.plaintext)
    }

    @Test func intermediateValuesMatchRFC8291AppendixA() throws {
        let userAgent = try userAgentKey
        let sender = try senderKey
        let userAgentPublic = try Vector.bytes(Vector.userAgentPublic)
        let senderPublic = try Vector.bytes(Vector.senderPublic)
        #expect(userAgent.publicKey.uncompressed == userAgentPublic)
        #expect(sender.publicKey.uncompressed == senderPublic)

        let ecdh = try sender.sharedSecret(with: ES256PublicKey(uncompressed: userAgentPublic))
        #expect(Base64URL.encode(ecdh) == Vector.ecdhSecret)
        #expect(try userAgent.sharedSecret(with: ES256PublicKey(uncompressed: senderPublic)) == ecdh)

        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublic + senderPublic
        let ikm = try HKDF.sha256(salt: authSecret, inputKeyMaterial: ecdh, info: keyInfo, length: 32)
        #expect(Base64URL.encode(ikm) == Vector.ikm)
        let salt = try Vector.bytes(Vector.salt)
        let cek = try HKDF.sha256(salt: salt, inputKeyMaterial: ikm, info: Array("Content-Encoding: aes128gcm\0".utf8), length: 16)
        #expect(Base64URL.encode(cek) == Vector.cek)
        let nonce = try HKDF.sha256(salt: salt, inputKeyMaterial: ikm, info: Array("Content-Encoding: nonce\0".utf8), length: 12)
        #expect(Base64URL.encode(nonce) == Vector.nonce)

        // The record is the plaintext and the delimiter 0x02 under CEK and NONCE.
        let body = try Vector.bytes(Vector.body)
        #expect(try AES128GCM.seal(key: cek, nonce: nonce, plaintext: Vector.plaintext + [0x02]) == Array(body[86...]))
        // And the header is salt ‖ rs 4096 ‖ idlen 65 ‖ the sender's key.
        #expect(Array(body[..<86]) == salt + [0x00, 0x00, 0x10, 0x00, 65] + senderPublic)
    }

    @Test func freshKeysAndSaltRoundTrip() throws {
        let browser = try ES256PrivateKey.generate()
        let secret = SecureRandom.bytes(16)
        let message = Array(#"{"title":"Milk","body":"2 l"}"#.utf8)
        let first = try WebPushPayload.encrypt(message, to: browser.publicKey, authSecret: secret)
        let second = try WebPushPayload.encrypt(message, to: browser.publicKey, authSecret: secret)
        #expect(first.count == 86 + message.count + 1 + 16)
        #expect(first[..<16] != second[..<16])  // a fresh salt
        #expect(first[21..<86] != second[21..<86])  // and a fresh sender key each time
        #expect(Array(first[16..<21]) == [0x00, 0x00, 0x10, 0x00, 65])
        #expect(try WebPushPayload.decrypt(first, with: browser, authSecret: secret) == message)
        #expect(try WebPushPayload.decrypt(second, with: browser, authSecret: secret) == message)
        #expect(
            try WebPushPayload.decrypt(try WebPushPayload.encrypt([], to: browser.publicKey, authSecret: secret), with: browser, authSecret: secret)
                == [])

        // Another browser's key or auth secret does not open it.
        let other = #expect(throws: CryptoError.self) { try WebPushPayload.decrypt(first, with: try ES256PrivateKey.generate(), authSecret: secret) }
        #expect(other?.code == .authenticationFailed)
        let wrongSecret = #expect(throws: CryptoError.self) { try WebPushPayload.decrypt(first, with: browser, authSecret: SecureRandom.bytes(16)) }
        #expect(wrongSecret?.code == .authenticationFailed)
    }

    @Test func maximumPlaintextFitsOneRecordAndOneMoreByteIsRefused() throws {
        #expect(WebPushPayload.maximumPlaintext == 3993)
        let browser = try ES256PrivateKey.generate()
        let secret = SecureRandom.bytes(16)
        let largest = SecureRandom.bytes(WebPushPayload.maximumPlaintext)
        let body = try WebPushPayload.encrypt(largest, to: browser.publicKey, authSecret: secret)
        #expect(body.count == 4096)
        #expect(try WebPushPayload.decrypt(body, with: browser, authSecret: secret) == largest)

        let error = #expect(throws: CryptoError.self) {
            try WebPushPayload.encrypt(largest + [0], to: browser.publicKey, authSecret: secret)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("3994 bytes") == true, "\(String(describing: error))")
    }

    /// Every byte but the record size is covered: the salt and keyid through the keys, the record
    /// through the tag. (`rs` is not authenticated in RFC 8188; one too small is refused below.)
    @Test func aFlippedByteIsRefused() throws {
        let body = try Vector.bytes(Vector.body)
        let key = try userAgentKey
        let secret = try authSecret
        for index in body.indices where !(16..<20).contains(index) {
            var flipped = body
            flipped[index] ^= 0x01
            #expect(throws: CryptoError.self, "byte \(index)") { try WebPushPayload.decrypt(flipped, with: key, authSecret: secret) }
        }
    }

    @Test func malformedBodiesAreRefusedNamingTheProblem() throws {
        let body = try Vector.bytes(Vector.body)
        let key = try userAgentKey
        let secret = try authSecret
        func refusal(_ bytes: [UInt8]) -> CryptoError? {
            #expect(throws: CryptoError.self) { try WebPushPayload.decrypt(bytes, with: key, authSecret: secret) }
        }
        var idlen = body
        idlen[20] = 64
        var smallRecordSize = body
        smallRecordSize.replaceSubrange(16..<20, with: [0, 0, 0, 17])
        var twoRecords = body
        twoRecords.replaceSubrange(16..<20, with: [0, 0, 0, 50])  // the 58-byte record would be two
        var notAPoint = body
        notAPoint.replaceSubrange(22..<86, with: [UInt8](repeating: 0x01, count: 64))
        let cases: [(bytes: [UInt8], code: CryptoError.Code, says: String)] = [
            (Array(body[..<20]), .malformedMessage, "header"),
            (Array(body[..<85]), .malformedMessage, "86-byte"),
            (idlen, .malformedMessage, "idlen is 64"),
            (smallRecordSize, .malformedMessage, "record size 17"),
            (twoRecords, .malformedMessage, "single record"),
            (Array(body[..<(86 + 16)]), .malformedMessage, "too short"),
            (Array(body[..<86]), .malformedMessage, "0 bytes, too short"),
            (notAPoint, .invalidKey, "keyid"),
            (body + [0], .authenticationFailed, "does not match"),
        ]
        for (bytes, code, says) in cases {
            let error = refusal(bytes)
            #expect(error?.code == code, "\(says): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(says): \(String(describing: error))")
        }
        let shortSecret = #expect(throws: CryptoError.self) { try WebPushPayload.decrypt(body, with: key, authSecret: Array(secret.dropLast())) }
        #expect(shortSecret?.code == .invalidArgument)
    }

    /// Records sealed with the vector's CEK and NONCE around other padding: the delimiter must be
    /// there and be 0x02, and zero padding after it is dropped (RFC 8188 §2).
    @Test func paddingDelimiterIsChecked() throws {
        let body = try Vector.bytes(Vector.body)
        let cek = try Vector.bytes(Vector.cek)
        let nonce = try Vector.bytes(Vector.nonce)
        let key = try userAgentKey
        let secret = try authSecret
        func decrypt(record plaintext: [UInt8]) throws -> [UInt8] {
            let sealed = try AES128GCM.seal(key: cek, nonce: nonce, plaintext: plaintext)
            return try WebPushPayload.decrypt(Array(body[..<86]) + sealed, with: key, authSecret: secret)
        }
        #expect(try decrypt(record: Vector.plaintext + [0x02, 0, 0, 0, 0]) == Vector.plaintext)
        #expect(try decrypt(record: [0x02]) == [])
        for (record, says) in [(Vector.plaintext, "0x6e, not 0x02"), (Vector.plaintext + [0x01], "0x01"), ([0, 0, 0], "no padding delimiter")] {
            let error = #expect(throws: CryptoError.self) { try decrypt(record: record) }
            #expect(error?.code == .malformedMessage)
            #expect(error?.message.contains(says) == true, "\(String(describing: error))")
        }
    }

    @Test func aBrowserKeyThatIsNotAnUncompressedPointIsRefused() throws {
        let point = try ES256PrivateKey.generate().publicKey.uncompressed
        var offCurve = point
        offCurve[64] ^= 1
        let compressed = [0x02 + (point[64] & 1)] + Array(point[1...32])
        for (bytes, says) in [(offCurve, "not a point on P-256"), (compressed, "compressed"), ([0x05] + point.dropFirst(), "0x05"), ([], "0 bytes")] {
            let error = #expect(throws: CryptoError.self) { try WebPushPayload.encrypt([1], toPoint: bytes, authSecret: SecureRandom.bytes(16)) }
            #expect(error?.code == .invalidKey && error?.message.contains(says) == true, "\(String(describing: error))")
        }
    }

    @Test func badArgumentsToEncryptAreRefused() throws {
        let browser = try ES256PrivateKey.generate().publicKey
        for (secret, salt) in [(SecureRandom.bytes(15), nil), (SecureRandom.bytes(17), nil), (SecureRandom.bytes(16), SecureRandom.bytes(15))] {
            let error = #expect(throws: CryptoError.self) { try WebPushPayload.encrypt([1], to: browser, authSecret: secret, salt: salt) }
            #expect(error?.code == .invalidArgument)
        }
    }
}
