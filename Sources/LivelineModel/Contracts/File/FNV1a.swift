/// The 64-bit FNV-1a hash (draft-eastlake-fnv, "The FNV Non-Cryptographic Hash Algorithm",
/// https://datatracker.ietf.org/doc/draft-eastlake-fnv/): for each byte, XOR it in, then multiply
/// by the FNV prime 2^40 + 2^8 + 0xb3, from the offset basis 0xcbf29ce484222325.
enum FNV1a {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = offsetBasis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= prime
        }
        return hash
    }

    /// The hash as 16 lower-case hexadecimal digits, zeros in front.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
