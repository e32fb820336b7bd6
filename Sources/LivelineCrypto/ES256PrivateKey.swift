import Foundation
internal import COpenSSL

/// An ES256 (ECDSA on P-256 with SHA-256) private key, e.g. an Apple `.p8` auth key (PKCS#8 PEM).
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" — the provider
/// token is signed with the team's `.p8` key using ES256, the only algorithm APNs supports
/// (`docs/apns.md` §1.4).
///
/// Signatures are JOSE-shaped (RFC 7518 §3.4): the 64 bytes r‖s, each big-endian and padded to 32
/// bytes, not OpenSSL's DER `ECDSA-Sig-Value`.
///
/// Sendable: the class owns its `EVP_PKEY` and frees it in `deinit`; the key is never changed after
/// `init`, and every `sign` call uses its own fresh `EVP_MD_CTX`, which is what OpenSSL 3 requires
/// for sharing a key between threads. Hence `@unchecked`.
public final class ES256PrivateKey: @unchecked Sendable {
    /// The owned OpenSSL key (private, P-256). Internal so `SelfSignedCertificate` can use it.
    let pkey: OpaquePointer

    /// The matching public key, derived once at load.
    public let publicKey: ES256PublicKey

    /// Loads a P-256 private key from PEM: PKCS#8 (`BEGIN PRIVATE KEY`, what Apple's `.p8` files
    /// hold) or SEC 1 (`BEGIN EC PRIVATE KEY`). Encrypted keys are refused (no password prompt).
    public init(pem: String) throws(CryptoError) {
        let key = try LibCrypto.withReadBIO(pem) { bio throws(CryptoError) in
            // A callback that supplies no password: without it OpenSSL would prompt on the terminal
            // for an encrypted key.
            try LibCrypto.check(
                PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil),
                "not a PEM private key (expected BEGIN PRIVATE KEY or BEGIN EC PRIVATE KEY, unencrypted)",
                code: .invalidKey
            )
        }
        do throws(CryptoError) {
            try Self.requireP256(key, what: "private key")
            self.publicKey = try ES256PublicKey(
                pem: LibCrypto.writtenText("PEM_write_bio_PUBKEY") { PEM_write_bio_PUBKEY($0, key) }
            )
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.pkey = key
    }

    /// Loads a PEM private key file, e.g. `AuthKey_ABC123DEFG.p8`. Errors name the path, never the
    /// file's content.
    public convenience init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw CryptoError.file(.unreadableFile, "read the private key file", file, error)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CryptoError(.invalidKey, "\(file.path): not a PEM private key (not UTF-8 text)")
        }
        do {
            try self.init(pem: text)
        } catch {
            throw CryptoError(error.code, "\(file.path): \(error.message)")
        }
    }

    /// A new random P-256 key.
    public static func generate() throws -> ES256PrivateKey {
        try ES256PrivateKey(owning: generateKey())
    }

    /// Takes ownership of `key` (a P-256 private key); frees it if deriving the public key fails.
    /// Internal so `ES256PrivateKey+Raw.swift` can build keys from a raw scalar.
    init(owning key: OpaquePointer) throws(CryptoError) {
        do throws(CryptoError) {
            // From the point itself: a PEM round trip runs OpenSSL 3's decoders, which cost a
            // fresh Web Push sender key (one per push) most of its time.
            self.publicKey = ES256PublicKey(owning: try LibCrypto.p256Key(point: try LibCrypto.p256Point(of: key)))
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.pkey = key
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the format of Apple's
    /// `.p8` files.
    public var pkcs8PEM: String {
        // Writing an in-memory key to a memory BIO only fails when memory runs out.
        do {
            return try LibCrypto.writtenText("PEM_write_bio_PrivateKey") {
                PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil)
            }
        } catch {
            fatalError("\(error)")
        }
    }

    /// Signs `message` with ECDSA P-256 over its SHA-256 digest and returns the JOSE signature r‖s
    /// (exactly 64 bytes).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try signature(of: message)
    }

    /// `sign` with a typed error, for this module's `throws(CryptoError)` callers (`JWS`).
    func signature(of message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        try LibCrypto.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey), "EVP_DigestSignInit failed")
        var length = 0
        let sized = message.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }
        try LibCrypto.check(sized, "EVP_DigestSign (length) failed")
        var der = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { input in
            der.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, input.baseAddress, input.count) }
        }
        try LibCrypto.check(signed, "EVP_DigestSign failed")
        return try Self.joseSignature(fromDER: Array(der.prefix(length)))
    }

    /// DER `ECDSA-Sig-Value` → r‖s, each left-padded to 32 bytes with `BN_bn2binpad`.
    private static func joseSignature(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        let signature = try LibCrypto.check(parsed, "d2i_ECDSA_SIG failed on OpenSSL's own signature")
        defer { ECDSA_SIG_free(signature) }
        var out = [UInt8](repeating: 0, count: 64)
        let written = out.withUnsafeMutableBufferPointer { buffer in
            (
                BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, 32),
                BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + 32, 32)
            )
        }
        guard written == (32, 32) else { throw LibCrypto.failure("BN_bn2binpad failed") }
        return out
    }

    /// A fresh P-256 key pair from `EVP_PKEY_keygen` (`EVP_PKEY_Q_keygen` is variadic and does
    /// not import into Swift).
    static func generateKey() throws(CryptoError) -> OpaquePointer {
        let context = try LibCrypto.check(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil), "EVP_PKEY_CTX_new_id failed")
        defer { EVP_PKEY_CTX_free(context) }
        try LibCrypto.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init failed")
        try LibCrypto.check(
            EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1),
            "EVP_PKEY_CTX_set_ec_paramgen_curve_nid failed"
        )
        var key: OpaquePointer?
        try LibCrypto.check(EVP_PKEY_keygen(context, &key), "EVP_PKEY_keygen failed")
        return try LibCrypto.check(key, "EVP_PKEY_keygen returned no key")
    }

    /// Throws unless `key` is an EC key on P-256 (OpenSSL's name: prime256v1).
    static func requireP256(_ key: OpaquePointer, what: String) throws(CryptoError) {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            throw CryptoError(.invalidKey, "the \(what) is not an EC key; ES256 needs a P-256 key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            throw LibCrypto.failure("the \(what) has no named curve; ES256 needs P-256", code: .invalidKey)
        }
        let curve = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard curve == "prime256v1" || curve == "P-256" else {
            throw CryptoError(.invalidKey, "the \(what) is on curve \(curve); ES256 needs P-256")
        }
    }
}
