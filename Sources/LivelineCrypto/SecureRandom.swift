internal import COpenSSL

/// Cryptographically strong random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "OpenSSL RAND_bytes failed")
        return out
    }

    /// A random secret of `byteCount` bytes as base64url text, prefixed (e.g. `ll_…`).
    public static func token(prefix: String, byteCount: Int = 32) -> String {
        prefix + Base64URL.encode(bytes(byteCount))
    }
}
