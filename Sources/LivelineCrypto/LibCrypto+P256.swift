internal import COpenSSL

/// Raw P-256 keys with OpenSSL 3's `EVP_PKEY_fromdata` and `EVP_PKEY_get_bn_param` (the `EC_KEY`
/// setters and getters are deprecated in OpenSSL 3), shared by `ES256PublicKey+Uncompressed.swift`
/// and `ES256PrivateKey+Raw.swift`.
///
/// Encodings are those of SEC 1 §2.3.3–2.3.4 (an uncompressed point is 0x04 ‖ X ‖ Y, each 32 bytes
/// big-endian), as RFC 8291 §3.1 and RFC 8292 §3.2 use them.
extension LibCrypto {
    /// The length of an uncompressed P-256 point: 0x04 ‖ X (32) ‖ Y (32).
    static let p256PointLength = 65
    /// The length of a P-256 private scalar and of each coordinate.
    static let p256ScalarLength = 32

    /// Refuses, as `.invalidKey` naming the problem, bytes that cannot be an uncompressed P-256
    /// point: another length, a compressed point (0x02 or 0x03 first, 33 bytes; RFC 8291 §3.1
    /// requires the uncompressed form) or another first byte. (Whether it is on the curve, OpenSSL
    /// checks when decoding it.)
    static func requireUncompressedPoint(_ bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == p256PointLength else {
            let compressed = bytes.count == 33 && (bytes.first == 0x02 || bytes.first == 0x03)
            throw CryptoError(
                .invalidKey,
                compressed
                    ? "the public key is a compressed P-256 point (33 bytes); an uncompressed point (0x04 ‖ X ‖ Y, 65 bytes) is needed"
                    : "the public key is \(bytes.count) bytes; an uncompressed P-256 point (0x04 ‖ X ‖ Y) is 65"
            )
        }
        guard bytes[0] == 0x04 else {
            throw CryptoError(.invalidKey, "the public key starts with 0x\(Hex.encode([bytes[0]])); an uncompressed P-256 point starts with 0x04")
        }
    }

    /// A P-256 `EVP_PKEY` from the uncompressed public `point` and, for a key pair, the private
    /// `scalar` that the caller checked matches it (`p256Point(forScalar:)`).
    ///
    /// OpenSSL decodes the point with `EC_POINT_oct2point`, which refuses coordinates that are not
    /// below the field prime or a point that is not on the curve; that failure is `.invalidKey`.
    static func p256Key(point: [UInt8], scalar: [UInt8]? = nil) throws(CryptoError) -> OpaquePointer {
        let builder = try check(OSSL_PARAM_BLD_new(), "OSSL_PARAM_BLD_new failed")
        defer { OSSL_PARAM_BLD_free(builder) }
        // The curve's short name from OpenSSL's static object table: the builder keeps the
        // pointer until `OSSL_PARAM_BLD_to_param`, so it must not be a temporary copy.
        let curve = try check(OBJ_nid2sn(NID_X9_62_prime256v1), "OBJ_nid2sn failed")
        try check(
            OSSL_PARAM_BLD_push_utf8_string(builder, copenssl_pkey_param_group_name(), curve, 0),
            "OSSL_PARAM_BLD_push_utf8_string failed"
        )
        var privateNumber: OpaquePointer?
        defer { BN_clear_free(privateNumber) }
        if let scalar {
            privateNumber = try bigNumber(scalar)
            try check(
                OSSL_PARAM_BLD_push_BN(builder, copenssl_pkey_param_priv_key(), privateNumber),
                "OSSL_PARAM_BLD_push_BN failed"
            )
        }
        // The builder keeps the pointer to `point`'s bytes until `to_param` copies them.
        let params = try point.withUnsafeBufferPointer { buffer throws(CryptoError) in
            try check(
                OSSL_PARAM_BLD_push_octet_string(builder, copenssl_pkey_param_pub_key(), buffer.baseAddress, buffer.count),
                "OSSL_PARAM_BLD_push_octet_string failed"
            )
            return try check(OSSL_PARAM_BLD_to_param(builder), "OSSL_PARAM_BLD_to_param failed")
        }
        // Frees (and clears) the secure-heap copy of the scalar too.
        defer { OSSL_PARAM_free(params) }

        let context = try check(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil), "EVP_PKEY_CTX_new_id failed")
        defer { EVP_PKEY_CTX_free(context) }
        try check(EVP_PKEY_fromdata_init(context), "EVP_PKEY_fromdata_init failed")
        var key: OpaquePointer?
        let selection = scalar == nil ? COPENSSL_EVP_PKEY_PUBLIC_KEY : COPENSSL_EVP_PKEY_KEYPAIR
        try check(EVP_PKEY_fromdata(context, &key, selection, params), "the bytes are not a point on P-256", code: .invalidKey)
        return try check(key, "EVP_PKEY_fromdata returned no key")
    }

    /// The uncompressed public point of `scalar` (d·G), after checking 1 ≤ d < n (SEC 1 §3.2.1).
    static func p256Point(forScalar scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        let group = try check(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), "EC_GROUP_new_by_curve_name failed")
        defer { EC_GROUP_free(group) }
        let number = try bigNumber(scalar)
        defer { BN_clear_free(number) }
        let order = try check(EC_GROUP_get0_order(group), "EC_GROUP_get0_order failed")
        guard BN_is_zero(number) == 0, BN_cmp(number, order) < 0 else {
            throw CryptoError(.invalidKey, "the private scalar is 0 or not below the order of P-256")
        }
        let point = try check(EC_POINT_new(group), "EC_POINT_new failed")
        defer { EC_POINT_free(point) }
        try check(EC_POINT_mul(group, point, number, nil, nil, nil), "EC_POINT_mul failed")
        var out = [UInt8](repeating: 0, count: p256PointLength)
        let written = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, nil)
        }
        guard written == p256PointLength else { throw failure("EC_POINT_point2oct failed") }
        return out
    }

    /// The uncompressed public point of a P-256 `key`, from its coordinates (so the result does
    /// not depend on the point format the key was read in).
    static func p256Point(of key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        let x = try bigNumberParameter(key, OSSL_PKEY_PARAM_EC_PUB_X)
        let y = try bigNumberParameter(key, OSSL_PKEY_PARAM_EC_PUB_Y)
        return [0x04] + x + y
    }

    /// The 32-byte private scalar of a P-256 `key`.
    static func p256Scalar(of key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        try bigNumberParameter(key, OSSL_PKEY_PARAM_PRIV_KEY)
    }

    /// A key's BIGNUM parameter `name`, big-endian, left-padded to 32 bytes.
    private static func bigNumberParameter(_ key: OpaquePointer, _ name: String) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        try check(EVP_PKEY_get_bn_param(key, name, &number), "EVP_PKEY_get_bn_param(\(name)) failed")
        defer { BN_clear_free(number) }
        var out = [UInt8](repeating: 0, count: p256ScalarLength)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32($0.count)) }
        guard written == p256ScalarLength else { throw failure("BN_bn2binpad(\(name)) failed") }
        return out
    }

    /// A BIGNUM in OpenSSL's secure heap (it may hold a private scalar) from big-endian `bytes`;
    /// the caller frees it with `BN_clear_free`.
    private static func bigNumber(_ bytes: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let number = try check(BN_secure_new(), "BN_secure_new failed")
        let read = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), number) }
        guard read != nil else {
            BN_clear_free(number)
            throw failure("BN_bin2bn failed")
        }
        return number
    }
}
