internal import COpenSSL

/// AES-128 in Galois/Counter Mode through OpenSSL's `EVP_aes_128_gcm`, with a 12-byte nonce, a
/// 16-byte tag and no associated data: the record cipher of the `aes128gcm` content coding
/// (RFC 8188 §2, which cites NIST SP 800-38D).
public enum AES128GCM {
    public static let keyLength = 16
    public static let nonceLength = 12
    public static let tagLength = 16
    /// The longest plaintext one call takes: OpenSSL counts bytes in an `Int32`.
    public static let maximumLength = Int(Int32.max) - 32

    /// Encrypts `plaintext` and returns ciphertext ‖ 16-byte tag. Throws `.invalidArgument` for a
    /// key that is not 16 bytes or a nonce that is not 12.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard plaintext.count <= maximumLength else { throw CryptoError(.invalidArgument, "the plaintext is longer than \(maximumLength) bytes") }
        let context = try start(key: key, nonce: nonce, encrypt: true)
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        try out.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
            var written: Int32 = 0
            if !plaintext.isEmpty {
                let updated = plaintext.withUnsafeBufferPointer {
                    EVP_EncryptUpdate(context, buffer.baseAddress, &written, $0.baseAddress, Int32($0.count))
                }
                try LibCrypto.check(updated, "EVP_EncryptUpdate failed")
            }
            var final: Int32 = 0
            try LibCrypto.check(EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &final), "EVP_EncryptFinal_ex failed")
            guard Int(written) + Int(final) == plaintext.count else { throw CryptoError(.openSSL, "AES-128-GCM wrote a short ciphertext") }
            try LibCrypto.check(
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), buffer.baseAddress! + plaintext.count),
                "EVP_CTRL_GCM_GET_TAG failed"
            )
        }
        return out
    }

    /// Decrypts ciphertext ‖ 16-byte tag. Throws `.authenticationFailed` when the tag does not
    /// match (another key or nonce, or altered bytes); no plaintext is returned then.
    public static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= tagLength else {
            throw CryptoError(.authenticationFailed, "the sealed data is \(sealed.count) bytes, shorter than the 16-byte AES-GCM tag")
        }
        guard sealed.count - tagLength <= maximumLength else {
            throw CryptoError(.invalidArgument, "the ciphertext is longer than \(maximumLength) bytes")
        }
        let context = try start(key: key, nonce: nonce, encrypt: false)
        defer { EVP_CIPHER_CTX_free(context) }
        let count = sealed.count - tagLength
        var tag = Array(sealed[count...])
        var out = [UInt8](repeating: 0, count: count + tagLength)  // room to spare for OpenSSL
        let verified = try out.withUnsafeMutableBufferPointer { buffer throws(CryptoError) -> Bool in
            var written: Int32 = 0
            if count > 0 {
                let updated = sealed.withUnsafeBufferPointer {
                    EVP_DecryptUpdate(context, buffer.baseAddress, &written, $0.baseAddress, Int32(count))
                }
                try LibCrypto.check(updated, "EVP_DecryptUpdate failed")
            }
            try LibCrypto.check(
                tag.withUnsafeMutableBufferPointer { EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), $0.baseAddress) },
                "EVP_CTRL_GCM_SET_TAG failed"
            )
            var final: Int32 = 0
            // 1: the tag matches; anything else: it does not (OpenSSL queues no reason for that).
            let result = EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(written), &final)
            LibCrypto.clearErrors()
            return result == 1 && Int(written) + Int(final) == count
        }
        guard verified else {
            throw CryptoError(.authenticationFailed, "the AES-128-GCM tag does not match (another key or nonce, or altered data)")
        }
        return Array(out.prefix(count))
    }

    /// A cipher context set up with `key` and `nonce`; the caller frees it.
    private static func start(key: [UInt8], nonce: [UInt8], encrypt: Bool) throws(CryptoError) -> OpaquePointer {
        guard key.count == keyLength else { throw CryptoError(.invalidArgument, "the AES-128-GCM key is \(key.count) bytes, not 16") }
        guard nonce.count == nonceLength else {
            throw CryptoError(.invalidArgument, "the AES-128-GCM nonce is \(nonce.count) bytes, not 12")
        }
        let context = try LibCrypto.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new failed")
        // GCM's default IV length is 12 bytes, the nonce length here.
        let started = key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in
                encrypt
                    ? EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key.baseAddress, nonce.baseAddress)
                    : EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key.baseAddress, nonce.baseAddress)
            }
        }
        guard started == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw LibCrypto.failure(encrypt ? "EVP_EncryptInit_ex failed" : "EVP_DecryptInit_ex failed")
        }
        return context
    }
}
