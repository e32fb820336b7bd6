import Foundation
import LivelineStore
import Synchronization

/// The overview's push counts per 5-minute slot, aligned to the clock, the settled slots kept
/// across renders and streams: a render reads the deliveries of the last minutes, not the hour's.
///
/// Every open overview renders every 2 s, and an hour of deliveries grows with the push rate; read
/// whole each time, it also mapped most of the database file into the reading connection (the
/// soak's RSS peaks, `docs/performance.md`, "Soak").
final class PushChartCounts: Sendable {
    typealias Count = OperationsReads.OutcomeCount
    static let slotSeconds = 300
    static let slots = 12
    /// A slot counts as settled this long after it ended: an attempt is recorded once answered,
    /// within the dispatcher's wait for answers, long before.
    static let settling: TimeInterval = 300

    /// Settled slots by their start (seconds since 1970): their counts, `slot` 0.
    private let settled = Mutex<[Int64: [OperationsReads.OutcomeCount]]>([:])

    /// The counts of the 12 slots up to the one `now` is in (`slot` 0 the oldest) and the first
    /// slot's start; `read(since, slotSeconds)` reads the deliveries from `since` on.
    func counts(now: Date, read: (Date, Int) throws -> [OperationsReads.OutcomeCount]) throws -> (first: Date, counts: [Count]) {
        let size = Int64(Self.slotSeconds)
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let current = seconds - ((seconds % size) + size) % size
        let starts = (0..<Int64(Self.slots)).map { current - size * (Int64(Self.slots) - 1 - $0) }
        let known = settled.withLock { cache in
            cache = cache.filter { $0.key >= starts[0] && $0.key <= current }
            return cache
        }
        // From the first slot not kept on (the current one is never kept).
        let from = starts.first { known[$0] == nil } ?? current
        var fresh: [Int64: [OperationsReads.OutcomeCount]] = [:]
        for count in try read(Date(timeIntervalSince1970: TimeInterval(from)), Self.slotSeconds) where count.slot >= 0 {
            var own = count
            own.slot = 0
            fresh[from + size * Int64(count.slot), default: []].append(own)
        }
        let nowSettled = starts.filter { $0 >= from && TimeInterval($0 + size) + Self.settling <= now.timeIntervalSince1970 }
        if !nowSettled.isEmpty {
            settled.withLock { cache in for start in nowSettled { cache[start] = fresh[start] ?? [] } }
        }
        var counts: [OperationsReads.OutcomeCount] = []
        for (index, start) in starts.enumerated() {
            for var count in (start < from ? known[start] : fresh[start]) ?? [] {
                count.slot = index
                counts.append(count)
            }
        }
        return (Date(timeIntervalSince1970: TimeInterval(starts[0])), counts)
    }
}
