internal import COpenSSL

/// HKDF (RFC 5869) through OpenSSL's `EVP_KDF` "HKDF", the key derivation of Web Push message
/// encryption (RFC 8291 §3.3, RFC 8188 §2.2–2.3).
public enum HKDF {
    /// The most `length` allows with SHA-256: 255 blocks of 32 bytes (RFC 5869 §2.3).
    public static let maximumLength = 255 * 32

    /// The algorithm, fetched once: fetching it for every derivation cost more than deriving
    /// (three per web push). A fetched algorithm is shared read-only, which openssl-threads(7)
    /// allows from any thread.
    private final class Algorithm: @unchecked Sendable {
        let kdf: OpaquePointer?
        init() { kdf = EVP_KDF_fetch(nil, "HKDF", nil) }
    }
    private static let algorithm = Algorithm()

    /// RFC 5869 extract-and-expand with SHA-256: PRK = HMAC(salt, IKM), then `length` bytes of
    /// T(1) ‖ T(2) ‖ … with `info`. An empty salt is the RFC's "not provided" (32 zero bytes).
    ///
    /// Throws `.invalidArgument` when `length` is not in 1…8160; OpenSSL 3.0 further limits
    /// `info` to 1024 bytes.
    public static func sha256(salt: [UInt8], inputKeyMaterial: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard (1...maximumLength).contains(length) else {
            throw CryptoError(.invalidArgument, "HKDF-SHA256 output length \(length) is not in 1…\(maximumLength) (RFC 5869 §2.3)")
        }
        let kdf = try LibCrypto.check(algorithm.kdf, "EVP_KDF_fetch(HKDF) failed")
        var out = [UInt8](repeating: 0, count: length)
        // Empty arrays may have no base address; a one-byte buffer with count 0 stands in.
        let derived = (salt.isEmpty ? [0] : salt).withUnsafeBufferPointer { saltBytes in
            (inputKeyMaterial.isEmpty ? [0] : inputKeyMaterial).withUnsafeBufferPointer { key in
                (info.isEmpty ? [0] : info).withUnsafeBufferPointer { infoBytes in
                    out.withUnsafeMutableBufferPointer { output in
                        copenssl_hkdf_sha256(
                            kdf, saltBytes.baseAddress, salt.count, key.baseAddress, inputKeyMaterial.count, infoBytes.baseAddress, info.count,
                            output.baseAddress, length)
                    }
                }
            }
        }
        try LibCrypto.check(derived, "HKDF derive failed")
        return out
    }
}
