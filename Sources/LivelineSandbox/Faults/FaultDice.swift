/// Reproducible draws for fault injection: the n-th draw of a seed is always the same number.
enum FaultDice {
    /// A number in 0..<1 from SplitMix64 of (`seed`, `index`).
    static func draw(seed: UInt64, index: UInt64) -> Double {
        Double(mix(seed &+ (index &+ 1) &* 0x9E37_79B9_7F4A_7C15) >> 11) / Double(1 << 53)
    }

    /// SplitMix64's finalizer: a bijection of 64-bit values that looks random.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
