/// Lowercase random (version 4) UUIDs for `apns-id`, many at a time: seeded once from the
/// system's random source, then drawn from xoshiro256** — a fan-out to 100,000 tokens makes
/// 100,000 of them, and `UUID()` asks the kernel for randomness each time. An `apns-id` only
/// names a push (APNs echoes it back); it is no secret, so nothing here is.
public struct APNSIDGenerator: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next())
        // xoshiro's one bad state (all zero) cannot come back once left.
        if state == (0, 0, 0, 0) { state.0 = 1 }
    }

    /// The next id: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`, lowercase hex (RFC 9562, version 4).
    public mutating func next() -> String {
        // Bytes 0–7 and 8–15, big-endian; the version in byte 6's high nibble, the variant in
        // byte 8's two high bits.
        let high = (word() & ~0xF000) | 0x4000
        let low = (word() & ~(0xC0 << 56)) | (0x80 << 56)
        return String(unsafeUninitializedCapacity: 36) { text in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { hex in
                var at = 0
                for nibble in 0..<32 {
                    if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    let word = nibble < 16 ? high : low
                    text[at] = hex[Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)]
                    at += 1
                }
            }
            return 36
        }
    }

    /// xoshiro256** (Blackman and Vigna).
    private mutating func word() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }
}
