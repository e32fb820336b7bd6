internal import COpenSSL

/// A P-256 private key as its raw 32-byte scalar d (SEC 1 §2.3.7), the form of the RFC 8291
/// Appendix A test vectors and of a simulated browser's key.
extension ES256PrivateKey {
    /// Loads a key from the 32-byte big-endian private scalar d; the public key is computed as d·G.
    ///
    /// Refused with `.invalidKey` when `rawPrivateKey` is not 32 bytes or d is 0 or not below the
    /// order of P-256.
    public convenience init(rawPrivateKey: [UInt8]) throws(CryptoError) {
        guard rawPrivateKey.count == LibCrypto.p256ScalarLength else {
            throw CryptoError(.invalidKey, "the private key is \(rawPrivateKey.count) bytes; a P-256 private scalar is 32")
        }
        let point = try LibCrypto.p256Point(forScalar: rawPrivateKey)
        try self.init(owning: try LibCrypto.p256Key(point: point, scalar: rawPrivateKey))
    }

    /// The 32-byte big-endian private scalar d. Secret: never log it.
    public var rawPrivateKey: [UInt8] {
        // Reading the scalar of a loaded P-256 private key only fails when memory runs out.
        do {
            return try LibCrypto.p256Scalar(of: pkey)
        } catch {
            fatalError("\(error)")
        }
    }
}
