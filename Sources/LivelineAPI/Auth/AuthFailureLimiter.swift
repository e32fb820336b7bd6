import Foundation
import LivelineHTTP
import Synchronization

/// Failed authentications per client address (`LIVELINE_AUTH_FAILURES_PER_MINUTE`): a wrong
/// bearer token, admin key or dashboard sign-in counts; past `perMinute` of them within a
/// minute, every authentication from that address is answered 429 with `Retry-After` until the
/// oldest of them is a minute old — so keys cannot be guessed at speed. 0 turns it off. Counted
/// per instance, in memory; behind a reverse proxy every client shares the proxy's address.
public final class AuthFailureLimiter: Sendable {
    public let perMinute: Int
    private let clock: @Sendable () -> Date
    /// Addresses tracked at most (the oldest are forgotten first when more fail at once).
    private let capacity = 100_000

    private let failures = Mutex<[String: [Date]]>([:])

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
            times.removeAll { now.timeIntervalSince($0) >= 60 }
            failures[address] = times.isEmpty ? nil : times
            guard times.count >= perMinute, let oldest = times.first else { return nil }
            return 60 - now.timeIntervalSince(oldest)
        }
        if let wait {
            let seconds = max(1, Int(wait.rounded(.up)))
            throw HTTPError(
                status: 429, code: "tooManyFailedAuthentications",
                message: "\(perMinute) failed authentications from this address within a minute: try again in \(seconds) s",
                headers: [("Retry-After", String(seconds))])
        }
    }

    /// Counts a failed authentication of the request's address.
    public func failed(_ request: HTTPRequest) {
        guard perMinute > 0, let address = request.clientAddress else { return }
        let now = clock()
        failures.withLock { failures in
            if failures.count >= capacity, failures[address] == nil { failures.removeAll(keepingCapacity: true) }
            var times = failures[address, default: []]
            times.removeAll { now.timeIntervalSince($0) >= 60 }
            times.append(now)
            // Only the newest `perMinute` decide when the address may try again.
            if times.count > perMinute { times.removeFirst(times.count - perMinute) }
            failures[address] = times
        }
    }
}
