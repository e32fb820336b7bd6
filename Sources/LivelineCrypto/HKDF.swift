internal import COpenSSL

/// HKDF (RFC 5869) through OpenSSL's `EVP_PKEY_HKDF`, the key derivation of Web Push message
/// encryption (RFC 8291 §3.3, RFC 8188 §2.2–2.3).
public enum HKDF {
    /// The most `length` allows with SHA-256: 255 blocks of 32 bytes (RFC 5869 §2.3).
    public static let maximumLength = 255 * 32

    /// RFC 5869 extract-and-expand with SHA-256: PRK = HMAC(salt, IKM), then `length` bytes of
    /// T(1) ‖ T(2) ‖ … with `info`. An empty salt is the RFC's "not provided" (32 zero bytes).
    ///
    /// Throws `.invalidArgument` when `length` is not in 1…8160; OpenSSL 3.0 further limits
    /// `info` to 1024 bytes.
    public static func sha256(salt: [UInt8], inputKeyMaterial: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard (1...maximumLength).contains(length) else {
            throw CryptoError(.invalidArgument, "HKDF-SHA256 output length \(length) is not in 1…\(maximumLength) (RFC 5869 §2.3)")
        }
        let context = try LibCrypto.check(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil), "EVP_PKEY_CTX_new_id(HKDF) failed")
        defer { EVP_PKEY_CTX_free(context) }
        try LibCrypto.check(EVP_PKEY_derive_init(context), "EVP_PKEY_derive_init(HKDF) failed")
        try LibCrypto.check(EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()), "EVP_PKEY_CTX_set_hkdf_md failed")
        if !salt.isEmpty {
            try LibCrypto.check(withBytes(salt) { EVP_PKEY_CTX_set1_hkdf_salt(context, $0, $1) }, "EVP_PKEY_CTX_set1_hkdf_salt failed")
        }
        try LibCrypto.check(
            withBytes(inputKeyMaterial) { EVP_PKEY_CTX_set1_hkdf_key(context, $0, $1) }, "EVP_PKEY_CTX_set1_hkdf_key failed")
        if !info.isEmpty {
            try LibCrypto.check(withBytes(info) { EVP_PKEY_CTX_add1_hkdf_info(context, $0, $1) }, "EVP_PKEY_CTX_add1_hkdf_info failed")
        }
        var out = [UInt8](repeating: 0, count: length)
        var written = length
        try LibCrypto.check(out.withUnsafeMutableBufferPointer { EVP_PKEY_derive(context, $0.baseAddress, &written) }, "HKDF derive failed")
        guard written == length else { throw CryptoError(.openSSL, "HKDF gave \(written) bytes, not \(length)") }
        return out
    }

    /// Calls `body` with a non-nil pointer to `bytes` (OpenSSL copies them) and their count.
    private static func withBytes(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int32) -> Int32) -> Int32 {
        // An empty array may have no base address; a one-byte buffer with count 0 stands in.
        let storage = bytes.isEmpty ? [0] : bytes
        return storage.withUnsafeBufferPointer { body($0.baseAddress!, Int32(bytes.count)) }
    }
}
