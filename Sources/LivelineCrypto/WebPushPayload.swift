internal import COpenSSL

/// Web Push message encryption (RFC 8291) in the `aes128gcm` content coding (RFC 8188): what an
/// application server sends as the body of a push message, and what a browser decrypts.
///
/// One record of record size 4096 (RFC 8291 §4: an application server MUST use a single record),
/// the plaintext followed by the last-record padding delimiter 0x02 and no padding (RFC 8188 §2),
/// under the header salt (16) ‖ rs (4, big-endian) ‖ idlen (1) = 65 ‖ keyid = the sender's
/// uncompressed P-256 public key (RFC 8291 §4, RFC 8188 §2.1).
///
/// Keys (RFC 8291 §3.3–3.4, RFC 8188 §2.2–2.3), with ua the browser ("user agent") and as the
/// application server:
/// - ecdh_secret = ECDH(as_private, ua_public) = ECDH(ua_private, as_public)
/// - IKM = HKDF(salt: auth_secret, IKM: ecdh_secret, info: "WebPush: info" ‖ 0x00 ‖ ua_public ‖
///   as_public, 32)
/// - CEK = HKDF(salt, IKM, "Content-Encoding: aes128gcm" ‖ 0x00, 16)
/// - NONCE = HKDF(salt, IKM, "Content-Encoding: nonce" ‖ 0x00, 12), XOR the record sequence number
///   0, so unchanged
public enum WebPushPayload {
    /// The `rs` of every body this type writes, and the largest body: 4096, the payload size push
    /// services have to support (RFC 8030 §7.2, as RFC 8291 §4 applies it).
    public static let recordSize = 4096
    /// salt (16) ‖ rs (4) ‖ idlen (1) ‖ keyid (65).
    public static let headerLength = 16 + 4 + 1 + 65
    /// The largest plaintext one 4096-byte body holds: 4096 − 86 (header) − 1 (delimiter) − 16
    /// (tag) = 3993 (RFC 8291 §4).
    public static let maximumPlaintext = recordSize - headerLength - 1 - AES128GCM.tagLength
    /// The length of the browser's authentication secret (RFC 8291 §3.2).
    public static let authSecretLength = 16
    /// The length of the `aes128gcm` salt (RFC 8188 §2.1).
    public static let saltLength = 16

    /// Encrypts `plaintext` for the browser whose subscription holds `userAgentPoint` (`p256dh`,
    /// the 65-byte uncompressed point) and `authSecret` (`auth`), with a fresh sender key and 16
    /// random bytes of salt (RFC 8291 §3.1 and RFC 8188 §2.1: never reused).
    ///
    /// Throws `.invalidKey` when the point is not an uncompressed point on P-256, and
    /// `.invalidArgument` when the plaintext is longer than `maximumPlaintext` or the auth secret
    /// is not 16 bytes.
    public static func encrypt(_ plaintext: [UInt8], toPoint userAgentPoint: [UInt8], authSecret: [UInt8]) throws(CryptoError) -> [UInt8] {
        try encrypt(plaintext, toPoint: userAgentPoint, authSecret: authSecret, salt: nil)
    }

    private static func encrypt(
        _ plaintext: [UInt8], toPoint userAgentPoint: [UInt8], authSecret: [UInt8], salt: [UInt8]?
    )
        throws(CryptoError) -> [UInt8]
    {
        try requireSizes(plaintext: plaintext, authSecret: authSecret, salt: salt)
        let agreement = try P256Agreement.freshAgreement(with: userAgentPoint)
        return try seal(
            plaintext, ecdhSecret: agreement.secret, authSecret: authSecret, userAgentPublic: userAgentPoint,
            senderPublic: agreement.publicPoint, salt: salt ?? SecureRandom.bytes(saltLength))
    }

    /// ``encrypt(_:toPoint:authSecret:)`` for a loaded key. `senderKey` and `salt` are parameters
    /// only so tests can reproduce RFC 8291 Appendix A; nil, they are fresh. Also throws
    /// `.invalidArgument` for a salt that is not 16 bytes.
    public static func encrypt(
        _ plaintext: [UInt8], to userAgentKey: ES256PublicKey, authSecret: [UInt8], senderKey: ES256PrivateKey? = nil, salt: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        guard let senderKey else { return try encrypt(plaintext, toPoint: userAgentKey.uncompressed, authSecret: authSecret, salt: salt) }
        try requireSizes(plaintext: plaintext, authSecret: authSecret, salt: salt)
        let salt = salt ?? SecureRandom.bytes(saltLength)
        return try seal(
            plaintext, ecdhSecret: try senderKey.sharedSecret(with: userAgentKey), authSecret: authSecret,
            userAgentPublic: userAgentKey.uncompressed, senderPublic: senderKey.publicKey.uncompressed, salt: salt)
    }

    /// The body: header, then the one record sealed with the keys of RFC 8291 §3.4.
    private static func seal(
        _ plaintext: [UInt8], ecdhSecret: [UInt8], authSecret: [UInt8], userAgentPublic: [UInt8], senderPublic: [UInt8], salt: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        let (key, nonce) = try contentKeys(
            ecdhSecret: ecdhSecret, authSecret: authSecret, userAgentPublic: userAgentPublic, senderPublic: senderPublic, salt: salt)
        let sealed = try AES128GCM.seal(key: key, nonce: nonce, plaintext: plaintext + [0x02])
        let rs = UInt32(recordSize)
        let header = salt + [UInt8(rs >> 24), UInt8((rs >> 16) & 0xff), UInt8((rs >> 8) & 0xff), UInt8(rs & 0xff)]
        return header + [UInt8(senderPublic.count)] + senderPublic + sealed
    }

    private static func requireSizes(plaintext: [UInt8], authSecret: [UInt8], salt: [UInt8]?) throws(CryptoError) {
        guard plaintext.count <= maximumPlaintext else {
            throw CryptoError(
                .invalidArgument,
                "the plaintext is \(plaintext.count) bytes; one \(recordSize)-byte Web Push record holds at most \(maximumPlaintext)")
        }
        try requireAuthSecret(authSecret)
        if let salt, salt.count != saltLength { throw CryptoError(.invalidArgument, "the salt is \(salt.count) bytes, not 16") }
    }

    /// Decrypts a body made by `encrypt`, or by any RFC 8291 sender, with the browser's private
    /// key and auth secret.
    ///
    /// Throws, naming what is wrong: `.malformedMessage` for a header shorter than 86 bytes, an
    /// `idlen` other than 65, an `rs` below 18 (RFC 8188 §2.1), more than one record, a record too
    /// short for the tag, or a missing or non-final padding delimiter; `.invalidKey` when the
    /// `keyid` is not a P-256 point; `.authenticationFailed` when the tag does not match (another
    /// key or auth secret, or altered bytes); `.invalidArgument` when the auth secret is not 16
    /// bytes.
    public static func decrypt(_ body: [UInt8], with userAgentKey: ES256PrivateKey, authSecret: [UInt8]) throws(CryptoError) -> [UInt8] {
        try requireAuthSecret(authSecret)
        guard body.count >= 21 else {
            throw CryptoError(.malformedMessage, "the body is \(body.count) bytes, shorter than the aes128gcm header (salt, rs, idlen)")
        }
        let salt = Array(body[0..<16])
        let rs = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let idlen = Int(body[20])
        guard idlen == LibCrypto.p256PointLength else {
            throw CryptoError(.malformedMessage, "the aes128gcm header's idlen is \(idlen); Web Push needs 65 (the sender's public key)")
        }
        guard body.count >= headerLength else {
            throw CryptoError(.malformedMessage, "the body is \(body.count) bytes, shorter than the 86-byte aes128gcm header with its keyid")
        }
        guard rs >= 18 else { throw CryptoError(.malformedMessage, "the aes128gcm record size \(rs) is below the minimum 18") }
        let record = Array(body[headerLength...])
        guard record.count <= rs else {
            throw CryptoError(
                .malformedMessage, "the body holds \(record.count) bytes of records with a record size of \(rs); Web Push uses a single record")
        }
        guard record.count > AES128GCM.tagLength else {
            throw CryptoError(.malformedMessage, "the record is \(record.count) bytes, too short for the 16-byte tag and a padding delimiter")
        }
        let sender: ES256PublicKey
        do {
            sender = try ES256PublicKey(uncompressed: Array(body[21..<headerLength]))
        } catch {
            throw CryptoError(error.code, "the aes128gcm keyid is not the sender's key: \(error.message)")
        }
        let (key, nonce) = try contentKeys(
            ecdhSecret: try userAgentKey.sharedSecret(with: sender), authSecret: authSecret,
            userAgentPublic: userAgentKey.publicKey.uncompressed, senderPublic: sender.uncompressed, salt: salt)
        let padded: [UInt8]
        do {
            padded = try AES128GCM.open(key: key, nonce: nonce, sealed: record)
        } catch {
            throw CryptoError(error.code, "the record does not decrypt: \(error.message)")
        }
        // The plaintext, then the delimiter, then zero or more 0x00 bytes of padding (RFC 8188 §2).
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }) else {
            throw CryptoError(.malformedMessage, "the record has no padding delimiter (it is all zeros)")
        }
        guard padded[delimiter] == 0x02 else {
            throw CryptoError(
                .malformedMessage,
                "the record ends with padding delimiter 0x\(Hex.encode([padded[delimiter]])), not 0x02 (the last record's)")
        }
        return Array(padded[..<delimiter])
    }

    /// CEK and NONCE for one message (RFC 8291 §3.4, RFC 8188 §2.2–2.3).
    private static func contentKeys(
        ecdhSecret: [UInt8], authSecret: [UInt8], userAgentPublic: [UInt8], senderPublic: [UInt8], salt: [UInt8]
    ) throws(CryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublic + senderPublic
        let ikm = try HKDF.sha256(salt: authSecret, inputKeyMaterial: ecdhSecret, info: keyInfo, length: 32)
        let key = try HKDF.sha256(
            salt: salt, inputKeyMaterial: ikm, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: AES128GCM.keyLength)
        let nonce = try HKDF.sha256(
            salt: salt, inputKeyMaterial: ikm, info: Array("Content-Encoding: nonce".utf8) + [0], length: AES128GCM.nonceLength)
        return (key, nonce)
    }

    private static func requireAuthSecret(_ authSecret: [UInt8]) throws(CryptoError) {
        guard authSecret.count == authSecretLength else {
            throw CryptoError(.invalidArgument, "the auth secret is \(authSecret.count) bytes; a Web Push auth secret is 16")
        }
    }
}
