internal import COpenSSL

/// An ES256 (ECDSA P-256, SHA-256) public key, e.g. the one the APNs sandbox checks provider tokens
/// with.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" (ES256 is the only
/// algorithm; `docs/apns.md` §1.4). Signatures are JOSE-shaped r‖s (RFC 7518 §3.4).
///
/// Sendable: the class owns its `EVP_PKEY` and frees it in `deinit`; the key is never changed after
/// `init`, and every `verify` uses its own fresh `EVP_MD_CTX`. Hence `@unchecked`.
public final class ES256PublicKey: @unchecked Sendable {
    /// The owned OpenSSL key (public, P-256). Internal so ECDH (`ES256PrivateKey+ECDH.swift`) can
    /// use it as the peer.
    let pkey: OpaquePointer

    /// Loads a P-256 public key from SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
    public init(pem: String) throws(CryptoError) {
        let key = try LibCrypto.withReadBIO(pem) { bio throws(CryptoError) in
            try LibCrypto.check(
                PEM_read_bio_PUBKEY(bio, nil, nil, nil),
                "not a PEM public key (expected BEGIN PUBLIC KEY)",
                code: .invalidKey
            )
        }
        do throws(CryptoError) {
            try ES256PrivateKey.requireP256(key, what: "public key")
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.pkey = key
    }

    /// Takes ownership of `key`, a P-256 public key this module built (see
    /// `ES256PublicKey+Uncompressed.swift`).
    init(owning key: OpaquePointer) {
        self.pkey = key
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// The key as SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
    public var pem: String {
        // Writing an in-memory key to a memory BIO only fails when memory runs out.
        do {
            return try LibCrypto.writtenText("PEM_write_bio_PUBKEY") { PEM_write_bio_PUBKEY($0, pkey) }
        } catch {
            fatalError("\(error)")
        }
    }

    /// Whether `signature` (64 bytes r‖s) is a valid ES256 signature of `message` by this key.
    /// False for any other length, a bad signature, or an OpenSSL failure.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let der = Self.derSignature(fromJOSE: signature) else { return false }
        guard let context = EVP_MD_CTX_new() else {
            LibCrypto.clearErrors()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1 else {
            LibCrypto.clearErrors()
            return false
        }
        let result = der.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { EVP_DigestVerify(context, sig.baseAddress, sig.count, $0.baseAddress, $0.count) }
        }
        // 0 is a bad signature, a negative value an error; both leave reasons on the error queue.
        if result != 1 { LibCrypto.clearErrors() }
        return result == 1
    }

    /// r‖s → DER `ECDSA-Sig-Value` via `ECDSA_SIG_set0` and `i2d_ECDSA_SIG`.
    private static func derSignature(fromJOSE signature: [UInt8]) -> [UInt8]? {
        let (r, s) = signature.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress, 32, nil), BN_bin2bn(buffer.baseAddress! + 32, 32, nil))
        }
        guard let r, let s, let value = ECDSA_SIG_new() else {
            BN_free(r)
            BN_free(s)
            LibCrypto.clearErrors()
            return nil
        }
        defer { ECDSA_SIG_free(value) }
        guard ECDSA_SIG_set0(value, r, s) == 1 else {  // on success `value` owns r and s
            BN_free(r)
            BN_free(s)
            LibCrypto.clearErrors()
            return nil
        }
        let length = i2d_ECDSA_SIG(value, nil)
        guard length > 0 else {
            LibCrypto.clearErrors()
            return nil
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(value, &cursor)
        }
        guard written == length else {
            LibCrypto.clearErrors()
            return nil
        }
        return der
    }
}
