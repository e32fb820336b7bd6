internal import COpenSSL

/// SHA-256 through OpenSSL's one-shot `EVP_Digest`.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) { return digest }
        return Array(bytes).withUnsafeBytes { digest($0) }
    }

    /// The digest of the UTF-8 bytes of `text`, as 64 lower-case hex digits.
    public static func hex(_ text: String) -> String {
        var text = text
        return Hex.encode(text.withUTF8 { digest(UnsafeRawBufferPointer($0)) })
    }

    private static func digest(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var length: UInt32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: 32) { output, count in
            let ok = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, sha256, nil)
            precondition(ok == 1 && length == 32, "OpenSSL SHA-256 failed")
            count = 32
        }
        return out
    }
}

/// SHA-256 fetched once: `EVP_sha256()` makes OpenSSL 3 look the implementation up again on every
/// digest ("implicit fetching", OpenSSL's crypto(7), "Performance"), which cost more than hashing a
/// bearer token. A fetched `EVP_MD` is immutable and may be used from any thread; it is never freed.
nonisolated(unsafe) private let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
