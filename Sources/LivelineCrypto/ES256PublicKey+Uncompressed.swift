internal import COpenSSL

/// The raw form of a P-256 public key that Web Push uses: the 65-byte uncompressed point
/// 0x04 ‖ X ‖ Y (SEC 1 §2.3.3), as a browser's `p256dh` key (RFC 8291 §3.2), the `keyid` of an
/// `aes128gcm` body (RFC 8291 §4) and VAPID's `k` (RFC 8292 §3.2).
extension ES256PublicKey {
    /// Loads a key from the 65-byte uncompressed point 0x04 ‖ X ‖ Y.
    ///
    /// Refused with `.invalidKey` and a message naming the problem: another length, a compressed
    /// point (0x02 or 0x03 first, 33 bytes; RFC 8291 §3.1 requires the uncompressed form), another
    /// first byte, or coordinates that are not a point on P-256.
    public convenience init(uncompressed: [UInt8]) throws(CryptoError) {
        guard uncompressed.count == LibCrypto.p256PointLength else {
            let compressed = uncompressed.count == 33 && (uncompressed.first == 0x02 || uncompressed.first == 0x03)
            throw CryptoError(
                .invalidKey,
                compressed
                    ? "the public key is a compressed P-256 point (33 bytes); an uncompressed point (0x04 ‖ X ‖ Y, 65 bytes) is needed"
                    : "the public key is \(uncompressed.count) bytes; an uncompressed P-256 point (0x04 ‖ X ‖ Y) is 65"
            )
        }
        guard uncompressed[0] == 0x04 else {
            throw CryptoError(
                .invalidKey, "the public key starts with 0x\(Hex.encode([uncompressed[0]])); an uncompressed P-256 point starts with 0x04")
        }
        self.init(owning: try LibCrypto.p256Key(point: uncompressed))
    }

    /// The 65-byte uncompressed point 0x04 ‖ X ‖ Y.
    public var uncompressed: [UInt8] {
        // Reading the coordinates of a loaded P-256 key only fails when memory runs out.
        do {
            return try LibCrypto.p256Point(of: pkey)
        } catch {
            fatalError("\(error)")
        }
    }
}
