import Foundation
import LivelineCrypto
import LivelineHTTP
import Synchronization

/// Failed authentications per client address (`LIVELINE_AUTH_FAILURES_PER_MINUTE`): a wrong
/// bearer token, admin key or dashboard sign-in counts — each *different* wrong credential once,
/// so a phone that keeps polling with its revoked token is one failure, not one a request. Past
/// `perMinute` of them within a minute, every authentication from that address is answered 429
/// with `Retry-After` until the oldest of them is a minute old — so keys cannot be guessed at
/// speed. 0 turns it off. Counted per instance, in memory; every client behind one address (a
/// reverse proxy, a shared NAT) shares the count (docs/api.md).
public final class AuthFailureLimiter: Sendable {
    public let perMinute: Int
    private let clock: @Sendable () -> Date
    /// Addresses tracked at most: past it, the addresses whose newest failure is oldest go first.
    private let capacity = 100_000

    private struct Failure {
        let credential: [UInt8]
        let at: Date
    }
    private let failures = Mutex<[String: [Failure]]>([:])

    public init(perMinute: Int, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.perMinute = max(0, perMinute)
        self.clock = clock
    }

    /// Passes unless the request's address failed too often lately; else a 429 saying when to
    /// come back.
    public func check(_ request: HTTPRequest) throws {
        guard perMinute > 0, let address = request.clientAddress else { return }
        let now = clock()
        let wait = failures.withLock { failures -> TimeInterval? in
            guard var times = failures[address] else { return nil }
            times.removeAll { !Self.recent($0.at, now: now) }
            failures[address] = times.isEmpty ? nil : times
            guard times.count >= perMinute, let oldest = times.first else { return nil }
            return 60 - now.timeIntervalSince(oldest.at)
        }
        if let wait {
            let seconds = min(60, max(1, Int(wait.rounded(.up))))
            throw HTTPError(
                status: 429, code: "tooManyFailedAuthentications",
                message: "\(perMinute) failed authentications from this address within a minute: try again in \(seconds) s",
                headers: [("Retry-After", String(seconds))])
        }
    }

    /// Counts a failed authentication of the request's address with `credential` (what was
    /// presented; kept only as a hash) — once per credential within the minute.
    public func failed(_ request: HTTPRequest, credential: String) {
        guard perMinute > 0, let address = request.clientAddress else { return }
        let now = clock()
        let digest = Array(SHA256.digest(Array(credential.utf8)).prefix(16))
        failures.withLock { failures in
            if failures.count >= capacity, failures[address] == nil { Self.forgetOldest(&failures, now: now) }
            var times = failures[address, default: []]
            times.removeAll { !Self.recent($0.at, now: now) }
            if !times.contains(where: { $0.credential == digest }) { times.append(Failure(credential: digest, at: now)) }
            // Only the newest `perMinute` decide when the address may try again.
            if times.count > perMinute { times.removeFirst(times.count - perMinute) }
            failures[address] = times
        }
    }

    /// Within the last minute (a clock stepped back counts as now).
    private static func recent(_ date: Date, now: Date) -> Bool { now.timeIntervalSince(date) < 60 }

    /// Drops the tenth of the addresses whose newest failure is oldest (and every expired one).
    private static func forgetOldest(_ failures: inout [String: [Failure]], now: Date) {
        failures = failures.filter { $0.value.contains { recent($0.at, now: now) } }
        let newest = failures.map { ($0.key, $0.value.last?.at ?? .distantPast) }.sorted { $0.1 < $1.1 }
        for (address, _) in newest.prefix(max(1, newest.count / 10)) { failures[address] = nil }
    }
}
