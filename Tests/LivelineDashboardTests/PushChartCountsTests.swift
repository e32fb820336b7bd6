import Foundation
import Testing
@testable import LivelineDashboard
@testable import LivelineStore

/// The overview's push counts: the same as reading the whole hour, while a render reads only
/// from the first slot not yet settled.
@Suite struct PushChartCountsTests {
    /// Attempts every 7 s over two hours, every fifth refused.
    static let attempts: [(at: Int64, status: Int)] = (0..<1_030).map { (index: Int) -> (at: Int64, status: Int) in
        let at: Int64 = 1_800_000_000 - 7_200 + Int64(index) * 7
        return (at, index % 5 == 0 ? 410 : 200)
    }

    /// What `OperationsReads.deliveryOutcomes` answers for ``attempts`` up to `now`.
    static func read(since: Date, slotSeconds: Int, now: Date) -> [OperationsReads.OutcomeCount] {
        let from = Int64(since.timeIntervalSince1970), size = Int64(slotSeconds)
        var counts: [[Int]: Int] = [:]
        for attempt in attempts where attempt.at >= from && TimeInterval(attempt.at) <= now.timeIntervalSince1970 {
            counts[[Int((attempt.at - from) / size), attempt.status], default: 0] += 1
        }
        return counts.map { OperationsReads.OutcomeCount(slot: $0.key[0], status: $0.key[1], channelDeletion: false, count: $0.value) }
    }

    /// The 12 slots' counts by (slot, status), read whole.
    static func whole(now: Date) -> [[Int]: Int] {
        let seconds = Int64(now.timeIntervalSince1970)
        let first = seconds - seconds % 300 - 11 * 300
        return Dictionary(
            read(since: Date(timeIntervalSince1970: TimeInterval(first)), slotSeconds: 300, now: now).filter { $0.slot < 12 }.map {
                ([$0.slot, $0.status], $0.count)
            }, uniquingKeysWith: +)
    }

    @Test func aRenderReadsOnlyTheSlotsNotYetSettledAndCountsAsAWholeRead() throws {
        let counts = PushChartCounts()
        var reads: [Date] = []
        for offset in [0, 2, 4, 301, 303, 900] as [TimeInterval] {
            let now = Date(timeIntervalSince1970: 1_800_000_123 + offset)
            let (first, got) = try counts.counts(now: now) { since, size in
                reads.append(since)
                return Self.read(since: since, slotSeconds: size, now: now)
            }
            let seconds = Int64(now.timeIntervalSince1970)
            #expect(Int64(first.timeIntervalSince1970) == seconds - seconds % 300 - 11 * 300, "the slots are the clock's")
            let byKey = Dictionary(got.map { ([$0.slot, $0.status], $0.count) }, uniquingKeysWith: +)
            #expect(byKey == Self.whole(now: now), "at +\(offset) s")
            #expect(byKey.values.reduce(0, +) > 300, "most of the hour has attempts")
        }
        // The first render reads the hour; later ones only the slots not settled when last read
        // (a slot settles 5 minutes after it ended): never more than the last 20 minutes.
        #expect(reads.count == 6)
        let firstRead = reads[0].timeIntervalSince1970
        #expect(firstRead == 1_800_000_000 - 11 * 300)
        for (index, since) in reads.enumerated().dropFirst() {
            let now = 1_800_000_123 + [0, 2, 4, 301, 303, 900][index]
            #expect(since.timeIntervalSince1970 >= Double(now) - 1_200, "render \(index) read from \(since)")
        }
    }
}
