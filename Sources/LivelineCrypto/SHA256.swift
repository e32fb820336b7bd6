internal import COpenSSL

/// SHA-256 through OpenSSL's one-shot `EVP_Digest`.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = Array(bytes).withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "OpenSSL SHA-256 failed")
        return out
    }

    /// The digest of the UTF-8 bytes of `text`, as 64 lower-case hex digits.
    public static func hex(_ text: String) -> String {
        Hex.encode(digest(Array(text.utf8)))
    }
}
