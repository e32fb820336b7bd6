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
        try LibCrypto.requireUncompressedPoint(uncompressed)
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
