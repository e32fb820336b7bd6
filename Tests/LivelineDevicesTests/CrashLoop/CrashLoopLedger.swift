import Foundation
import Synchronization

/// What the clients of the crash loop sent and what the server acknowledged (answered 2xx). A
/// change that got no answer (the server died under it, or was down) may or may not have been
/// applied; an acknowledged one must be in the database.
final class CrashLoopLedger: Sendable {
    /// An acknowledged `PUT /v1/contexts/{key}`: the revision it made and the delay it carried.
    struct ContextWrite: Sendable, Hashable {
        var key: String
        var rev: Int
        var delay: Int
    }

    /// An acknowledged start: each device's outcome.
    struct StartAnswer: Sendable, Hashable {
        var key: String
        var outcomes: [String: String]  // device id → outcome
    }

    struct Notification: Sendable, Hashable {
        var userID: Int
        var dedupeKey: String
        var title: String
    }

    struct State: Sendable {
        var sent = 0
        var acknowledged = 0
        /// Sent, and no answer came (connection refused or cut by a kill).
        var unanswered = 0
        /// Answers other than 2xx, by status.
        var refused: [Int: Int] = [:]
        var refusals: [String] = []
        var writes: [ContextWrite] = []
        /// Every delay sent per context, answered or not, in order.
        var sentDelays: [String: [Int]] = [:]
        /// Shopping items whose addition was acknowledged: id → label.
        var items: [Int: String] = [:]
        /// Items whose check-off was acknowledged.
        var checked: Set<Int> = []
        var starts: [StartAnswer] = []
        var notifications: [Notification] = []
        /// Trip contexts whose creation was acknowledged, in order.
        var createdTrips: [String] = []
        var running = true
        /// What went wrong on the clients' threads (reported by the test).
        var problems: [String] = []
    }
    private let state = Mutex(State())

    var snapshot: State { state.withLock { $0 } }

    /// Counts a request; `answered` is its status, nil when no answer came.
    func sent(_ status: Int?, what: String) {
        state.withLock { state in
            state.sent += 1
            guard let status else {
                state.unanswered += 1
                return
            }
            if (200..<300).contains(status) {
                state.acknowledged += 1
            } else {
                state.refused[status, default: 0] += 1
                if state.refusals.count < 20 { state.refusals.append("\(status) \(what)") }
            }
        }
    }

    var isRunning: Bool { state.withLock { $0.running } }
    func stop() { state.withLock { $0.running = false } }
    func problem(_ text: String) { state.withLock { $0.problems.append(text) } }
    var createdTrips: [String] { state.withLock { $0.createdTrips } }
    /// Starts answered `queued` so far (device by device).
    var queuedStarts: Int { state.withLock { $0.starts.reduce(0) { $0 + $1.outcomes.values.filter { $0 == "queued" }.count } } }
    func created(trip key: String) { state.withLock { $0.createdTrips.append(key) } }

    func willWrite(key: String, delay: Int) { state.withLock { $0.sentDelays[key, default: []].append(delay) } }
    func wrote(_ write: ContextWrite) { state.withLock { $0.writes.append(write) } }
    func added(item id: Int, label: String) { state.withLock { $0.items[id] = label } }
    func checked(item id: Int) { _ = state.withLock { $0.checked.insert(id) } }
    func started(_ answer: StartAnswer) { state.withLock { $0.starts.append(answer) } }
    func notified(_ notification: Notification) { state.withLock { $0.notifications.append(notification) } }

    /// An item acknowledged as added and not yet acknowledged as checked off.
    func openItem(using random: inout some RandomNumberGenerator) -> Int? {
        state.withLock { state in state.items.keys.filter { !state.checked.contains($0) }.sorted().randomElement(using: &random) }
    }
}
