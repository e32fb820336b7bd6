import Foundation
import LivelineEngine
import LivelineLog
import Synchronization

/// Loads the configured feed again when its files change, looked at every ``interval``
/// (`LIVELINE_GTFS_CHECK_INTERVAL_S`): a new feed that reads without errors becomes current (rides
/// in progress keep theirs); one with errors, or one that cannot be read, is refused with its
/// report in the log and the server goes on with the feed it has.
final class FeedWatcher: Sendable {
    let path: URL
    let store: TransitFeedStore
    let timetables: TransitTimetables
    let logger: Logger
    let interval: TimeInterval
    private struct State {
        var lookedAt: Date?
        var seen: String?
        var failures = 0
    }
    private let state: Mutex<State>

    init(path: URL, store: TransitFeedStore, timetables: TransitTimetables, logger: Logger, interval: TimeInterval, loadedAt now: Date) {
        self.path = path
        self.interval = interval
        self.store = store
        self.timetables = timetables
        self.logger = logger
        state = Mutex(State(lookedAt: now, seen: Self.stamp(path)))
    }

    /// Loads that failed or were refused so far.
    var failures: Int { state.withLock { $0.failures } }

    /// Sizes and modification times of the feed's files: a cheap sign that they changed.
    static func stamp(_ path: URL) -> String? {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path.path, isDirectory: &isDirectory) else { return nil }
        let files =
            isDirectory.boolValue
            ? ((try? manager.contentsOfDirectory(atPath: path.path)) ?? []).sorted().map { path.appendingPathComponent($0) } : [path]
        return files.map { file in
            let attributes = (try? manager.attributesOfItem(atPath: file.path)) ?? [:]
            let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(file.lastPathComponent):\(size):\(modified)"
        }.joined(separator: "|")
    }

    func run(now: Date) {
        let due = state.withLock { state -> Bool in
            guard state.lookedAt.map({ now.timeIntervalSince($0) >= interval }) ?? true else { return false }
            state.lookedAt = now
            return true
        }
        guard due, let stamp = Self.stamp(path), stamp != state.withLock({ $0.seen }) else { return }
        // Read and loaded on a queue of its own: a big feed holds up no tick of the engine's sweep.
        loading.async { [self] in load(stamp: stamp, now: now) }
    }

    private let loading = DispatchQueue(label: "liveline-gtfs-reload")

    private func load(stamp: String, now: Date) {
        do {
            let (feed, report, fingerprint) = try GTFSReader.readWithFingerprint(path, today: ServiceDay.containing(now, in: Self.utc))
            guard !report.hasErrors else {
                state.withLock { $0.seen = stamp }  // refused for what it is: looked at again once it changes
                fail("the changed feed \(path.path) has errors and is not loaded; the previous one stays:\n\(report)")
                return
            }
            let (loaded, fresh) = try store.load(feed, fingerprint: fingerprint, source: path.path, now: now)
            state.withLock { $0.seen = stamp }
            timetables.remember(feed, id: loaded.id)
            // Loaded by this instance, or found current: another instance sharing the database loaded it first.
            logger.info(
                fresh ? "transit.feedReloaded" : "transit.feedKept",
                [("feed", .string(path.path)), ("fingerprint", .string(loaded.fingerprint)), ("stopTimes", .int(loaded.stopTimes))])
        } catch let error as GTFSError {
            state.withLock { $0.seen = stamp }  // unreadable as it is: looked at again once it changes
            fail("the changed feed \(path.path) cannot be read; the previous one stays: \(error)")
        } catch {
            // The database failed (busy, full): tried again at the next look.
            fail("the changed feed \(path.path) could not be stored; the previous one stays, tried again at the next look: \(error)")
        }
    }

    private static let utc = TimeZone(secondsFromGMT: 0) ?? .current

    private func fail(_ message: String) {
        state.withLock { $0.failures += 1 }
        logger.error("transit.feedRefused", [("message", .string(message))])
    }
}
