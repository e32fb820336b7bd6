import Foundation
import Synchronization

/// What the stories share: the household, the clock, the narration, and the moment the demo
/// stops. A story checks ``isStopping`` between its steps (never in the middle of one, so each
/// step's calls to the server and the cards they start go together) and paces itself in real
/// seconds (``beat``), so it reads the same at every `--speed`.
final class DemoStage: Sendable {
    let household: DemoHousehold
    let clock: DemoClock
    let narrator: DemoNarrator
    private let stopping = Atomic<Bool>(false)

    /// The real time between two steps of a story.
    static let beat: TimeInterval = 1.5

    init(household: DemoHousehold, clock: DemoClock, narrator: DemoNarrator) {
        self.household = household
        self.clock = clock
        self.narrator = narrator
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// The stories finish the step they are in and end.
    func stop() { stopping.store(true, ordering: .releasing) }

    /// Waits `beats` × ``beat`` of real time; false (as soon as it is seen) when the demo stops.
    func pause(_ beats: Double = 1) async -> Bool {
        await until(timeout: beats * Self.beat) { false }
        return !isStopping
    }

    /// Waits until `condition` holds (looking every tenth of a second), at most `timeout` real seconds or
    /// until the demo stops; whether it holds.
    @discardableResult
    func until(timeout: TimeInterval, _ condition: () async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !isStopping {
            if await condition() { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            try? await Task.sleep(for: .milliseconds(Int(min(100, left * 1000)) + 1))
        }
        return await condition()
    }
}
