/// A small seeded random number generator (SplitMix64), so a failing run can be replayed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A 32-byte device token as lower-case hex.
    mutating func token() -> String {
        (0..<4).map { _ in
            let value = next()
            return (0..<8).map { String(format: "%02x", UInt8(truncatingIfNeeded: value >> (8 * $0))) }.joined()
        }.joined()
    }
}
