import Foundation
import LivelineLog
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The GTFS-Realtime feed (`LIVELINE_GTFS_RT_URL`: `https://`, `http://` or a file path), fetched at
/// most once per ``interval`` for all rides together. A fetch that fails or a feed that does not
/// decode keeps the last good one and says so in the log (once per kind of failure); without a
/// URL there is no real time.
public final class RealtimeSource: Sendable {
    /// The least time between two fetches.
    public let interval: TimeInterval
    private let location: String?
    private let logger: Logger
    private struct State {
        var feed: RealtimeFeed?
        var fetchedAt: Date?
        var lastFailure: String?
        var failures = 0
    }
    private let state = Mutex(State())

    public init(location: String?, interval: TimeInterval = 5, logger: Logger) {
        self.location = location.flatMap { $0.isEmpty ? nil : $0 }
        self.interval = interval
        self.logger = logger
    }

    public var isConfigured: Bool { location != nil }

    /// Fetches that failed or did not decode so far.
    public var failures: Int { state.withLock { $0.failures } }

    /// When the feed in use was fetched, its header time, and the newest failure since (for the
    /// dashboard's feeds page).
    public var status: (fetchedAt: Date?, headerTimestamp: Int?, lastFailure: String?) {
        state.withLock { ($0.fetchedAt, $0.feed?.header.timestamp, $0.lastFailure) }
    }

    /// The feed as of `now`: fetched again when the last fetch is ``interval`` old; the last good
    /// one when that fails.
    public func feed(now: Date) -> RealtimeFeed? {
        guard let location else { return nil }
        let due = state.withLock { state -> Bool in
            guard state.fetchedAt.map({ now.timeIntervalSince($0) >= interval }) ?? true else { return false }
            state.fetchedAt = now
            return true
        }
        guard due else { return state.withLock { $0.feed } }
        // A file is read at once; an http(s) feed on a queue of its own, so a slow server holds up
        // no tick (its feed is there from the next call on).
        if location.hasPrefix("http://") || location.hasPrefix("https://") {
            fetching.async { [self] in refresh(location) }
        } else {
            refresh(location)
        }
        return state.withLock { $0.feed }
    }

    private let fetching = DispatchQueue(label: "liveline-gtfs-realtime")

    private func refresh(_ location: String) {
        do {
            let bytes = try Self.fetch(location)
            let feed = try RealtimeFeed.decode(bytes, source: location)
            state.withLock { state in
                // Only a newer feed replaces the one there is (OneBusAway: updates not newer are ignored).
                if feed.isNewer(than: state.feed) { state.feed = feed }
                state.lastFailure = nil
            }
        } catch {
            let message = "\(error)"
            let first = state.withLock { state -> Bool in
                state.failures += 1
                defer { state.lastFailure = message }
                return state.lastFailure != message
            }
            if first {
                logger.warning("transit.realtimeFailed", [("message", .string("\(message); the last good feed stays in use"))])
            }
        }
    }

    /// The bytes at `location`: an http(s) URL (10 s timeout) or a file.
    static func fetch(_ location: String) throws -> [UInt8] {
        guard location.hasPrefix("http://") || location.hasPrefix("https://") else {
            guard let data = FileManager.default.contents(atPath: location) else { throw GTFSError("the real-time feed \(location) cannot be read") }
            return Array(data)
        }
        guard let url = URL(string: location) else { throw GTFSError("LIVELINE_GTFS_RT_URL is no URL: \(location)") }
        let result = Mutex<Result<[UInt8], GTFSError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("application/x-protobuf", forHTTPHeaderField: "Accept")
        URLSession.shared.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let outcome: Result<[UInt8], GTFSError> =
                if let error { .failure(GTFSError("fetching the real-time feed failed: \(error.localizedDescription)")) } else if status != 200 {
                    .failure(GTFSError("the real-time feed answered \(status)"))
                } else { .success(Array(data ?? Data())) }
            result.withLock { $0 = outcome }
            done.signal()
        }.resume()
        done.wait()
        switch result.withLock({ $0 }) {
        case .success(let bytes)?: return bytes
        case .failure(let error)?: throw error
        case nil: throw GTFSError("fetching the real-time feed gave no answer")
        }
    }
}
