internal import COpenSSL

/// Elliptic-curve Diffie-Hellman on P-256 with OpenSSL's `EVP_PKEY_derive`, the key agreement of
/// Web Push message encryption (RFC 8291 §3.1).
extension ES256PrivateKey {
    /// The 32-byte shared secret with `peer`: the X coordinate of d·Q (SEC 1 §3.3.1), the same on
    /// both sides.
    public func sharedSecret(with peer: ES256PublicKey) throws(CryptoError) -> [UInt8] {
        try Self.sharedSecret(privateKey: pkey, peer: peer.pkey)
    }

    /// ECDH of the key pair `privateKey` with `peer`. The peer is not validated again here:
    /// every ``ES256PublicKey`` was checked to be a point on P-256 when it was made (OpenSSL
    /// refuses any other), which for a curve of cofactor 1 is all a peer key needs (SEC 1
    /// §3.2.2.1); OpenSSL's default check would add a whole scalar multiplication (n·Q = O).
    static func sharedSecret(privateKey: OpaquePointer, peer: OpaquePointer) throws(CryptoError) -> [UInt8] {
        let context = try LibCrypto.check(EVP_PKEY_CTX_new(privateKey, nil), "EVP_PKEY_CTX_new failed")
        defer { EVP_PKEY_CTX_free(context) }
        try LibCrypto.check(EVP_PKEY_derive_init(context), "EVP_PKEY_derive_init failed")
        try LibCrypto.check(
            EVP_PKEY_derive_set_peer_ex(context, peer, 0), "the peer's public key cannot be used for ECDH", code: .invalidKey)
        var length = 0
        try LibCrypto.check(EVP_PKEY_derive(context, nil, &length), "EVP_PKEY_derive (length) failed")
        guard length == LibCrypto.p256ScalarLength else { throw CryptoError(.openSSL, "ECDH on P-256 gave a \(length)-byte secret, not 32") }
        var secret = [UInt8](repeating: 0, count: length)
        try LibCrypto.check(secret.withUnsafeMutableBufferPointer { EVP_PKEY_derive(context, $0.baseAddress, &length) }, "EVP_PKEY_derive failed")
        guard length == LibCrypto.p256ScalarLength else { throw CryptoError(.openSSL, "ECDH on P-256 gave a \(length)-byte secret, not 32") }
        return secret
    }
}
