import Foundation

/// Exponential backoff with jitter for pushes APNs asked to retry (5xx, 429, lost connections).
///
/// Related APNs documentation: "Handling notification responses from APNs" — retry 5xx with
/// backoff; `TooManyRequests` may be retried after a delay (docs/apns.md §1.6).
public struct RetryPolicy: Sendable, Hashable {
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// Each further delay is this many times the one before.
    public var multiplier: Double
    /// No delay is longer.
    public var maximumDelay: Duration
    /// Each delay is moved randomly by up to this share (0.2: ±20 %), so retries spread out.
    public var jitter: Double
    /// How many sends in all (the first included) before giving up.
    public var maximumAttempts: Int

    public init(
        initialDelay: Duration = .seconds(1), multiplier: Double = 2, maximumDelay: Duration = .seconds(15 * 60),
        jitter: Double = 0.2, maximumAttempts: Int = 8
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before retry number `retry` (1 = the first retry), with jitter from `random`.
    public func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let base = Double(initialDelay.components.seconds) + Double(initialDelay.components.attoseconds) / 1e18
        let cap = Double(maximumDelay.components.seconds) + Double(maximumDelay.components.attoseconds) / 1e18
        let plain = min(cap, base * pow(multiplier, Double(max(0, retry - 1))))
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter, using: &random) : 0
        return .milliseconds(Int((max(0, plain * (1 + spread)) * 1000).rounded()))
    }

    /// `delay(beforeRetry:using:)` with the system's random numbers.
    public func delay(beforeRetry retry: Int) -> Duration {
        var random = SystemRandomNumberGenerator()
        return delay(beforeRetry: retry, using: &random)
    }
}
