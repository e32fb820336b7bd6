internal import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL's one-shot `HMAC`: what signs the dashboard's session
/// cookies and CSRF tokens.
public enum HMACSHA256 {
    /// The 32-byte code of `message` under `key`.
    public static func code(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Empty arrays may have no base address; a one-byte buffer with count 0 stands in.
        let result = (key.isEmpty ? [0] : key).withUnsafeBytes { keyBytes in
            Array(message.isEmpty ? [0] : Array(message)).withUnsafeBytes { input in
                out.withUnsafeMutableBufferPointer { output in
                    HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(key.count), input.bindMemory(to: UInt8.self).baseAddress, message.count,
                        output.baseAddress, &length)
                }
            }
        }
        precondition(result != nil && length == 32, "OpenSSL HMAC-SHA256 failed")
        return out
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
