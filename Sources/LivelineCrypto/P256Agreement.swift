internal import COpenSSL

/// The per-message key agreement of Web Push (RFC 8291 §3.1) on OpenSSL's `EC_POINT` functions
/// and one P-256 group for the process: a fresh sender key pair, and ECDH with the browser's key.
///
/// These are the calls OpenSSL's own key generation and ECDH make underneath `EVP_PKEY` (a random
/// scalar 1 ≤ d < n, d·G, and the X coordinate of d·Q, SEC 1 §3.2.1 and §3.3.1), without building
/// an `EVP_PKEY` for either key: decoding and fetching those cost a web push more than the
/// arithmetic did. P-256's scalar multiplication in OpenSSL is constant-time.
///
/// The group is only read (every function here takes it `const`), which openssl-threads(7) allows
/// from many threads at once.
enum P256Agreement {
    private final class Group: @unchecked Sendable {
        let pointer: OpaquePointer?
        init() { pointer = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) }
    }
    private static let shared = Group()

    /// A fresh key pair's uncompressed public point and the 32-byte ECDH secret of its private
    /// scalar with `peer`, a 65-byte uncompressed point. The scalar is never kept.
    ///
    /// Throws `.invalidKey` for a peer that is not an uncompressed point on P-256 (OpenSSL's
    /// `EC_POINT_oct2point` refuses coordinates off the curve or not below the field prime; the
    /// curve's cofactor is 1, so a point on it is all a peer key needs, SEC 1 §3.2.2.1).
    static func freshAgreement(with peer: [UInt8]) throws(CryptoError) -> (publicPoint: [UInt8], secret: [UInt8]) {
        try LibCrypto.requireUncompressedPoint(peer)
        let group = try LibCrypto.check(shared.pointer, "EC_GROUP_new_by_curve_name(P-256) failed")
        let context = try LibCrypto.check(BN_CTX_secure_new(), "BN_CTX_secure_new failed")
        defer { BN_CTX_free(context) }
        let peerPoint = try LibCrypto.check(EC_POINT_new(group), "EC_POINT_new failed")
        defer { EC_POINT_free(peerPoint) }
        let decoded = peer.withUnsafeBufferPointer { EC_POINT_oct2point(group, peerPoint, $0.baseAddress, $0.count, context) }
        try LibCrypto.check(decoded, "the bytes are not a point on P-256", code: .invalidKey)

        let scalar = try LibCrypto.check(BN_secure_new(), "BN_secure_new failed")
        defer { BN_clear_free(scalar) }
        BN_set_flags(scalar, BN_FLG_CONSTTIME)
        let order = try LibCrypto.check(EC_GROUP_get0_order(group), "EC_GROUP_get0_order failed")
        repeat {
            try LibCrypto.check(BN_priv_rand_range(scalar, order), "BN_priv_rand_range failed")
        } while BN_is_zero(scalar) == 1

        let publicPoint = try LibCrypto.check(EC_POINT_new(group), "EC_POINT_new failed")
        defer { EC_POINT_free(publicPoint) }
        try LibCrypto.check(EC_POINT_mul(group, publicPoint, scalar, nil, nil, context), "EC_POINT_mul (d·G) failed")
        var encoded = [UInt8](repeating: 0, count: LibCrypto.p256PointLength)
        let written = encoded.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group, publicPoint, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, context)
        }
        guard written == LibCrypto.p256PointLength else { throw LibCrypto.failure("EC_POINT_point2oct failed") }

        let shared = try LibCrypto.check(EC_POINT_new(group), "EC_POINT_new failed")
        defer { EC_POINT_clear_free(shared) }
        try LibCrypto.check(EC_POINT_mul(group, shared, nil, peerPoint, scalar, context), "EC_POINT_mul (d·Q) failed")
        guard EC_POINT_is_at_infinity(group, shared) == 0 else { throw CryptoError(.invalidKey, "ECDH gave the point at infinity") }
        let x = try LibCrypto.check(BN_secure_new(), "BN_secure_new failed")
        defer { BN_clear_free(x) }
        try LibCrypto.check(EC_POINT_get_affine_coordinates(group, shared, x, nil, context), "EC_POINT_get_affine_coordinates failed")
        var secret = [UInt8](repeating: 0, count: LibCrypto.p256ScalarLength)
        let length = secret.withUnsafeMutableBufferPointer { BN_bn2binpad(x, $0.baseAddress, Int32($0.count)) }
        guard length == LibCrypto.p256ScalarLength else { throw LibCrypto.failure("BN_bn2binpad failed") }
        return (encoded, secret)
    }
}
