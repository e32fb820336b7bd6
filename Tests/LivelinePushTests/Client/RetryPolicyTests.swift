import LivelinePush
import LivelinePushWire
import Testing

struct RetryPolicyTests {
    struct Fixed: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    @Test func delaysGrowExponentiallyUpToTheCap() {
        let policy = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(10), jitter: 0)
        var random = SystemRandomNumberGenerator()
        let delays = (1...6).map { policy.delay(beforeRetry: $0, using: &random) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
    }

    @Test func jitterStaysWithinItsShare() {
        let policy = RetryPolicy(initialDelay: .seconds(10), jitter: 0.2)
        var random = SystemRandomNumberGenerator()
        var seen: Set<Duration> = []
        for _ in 0..<200 {
            let delay = policy.delay(beforeRetry: 1, using: &random)
            #expect(delay >= .seconds(8) && delay <= .seconds(12))
            seen.insert(delay)
        }
        #expect(seen.count > 10)
    }
}
