import Foundation
import LivelinePushWire
import Synchronization

/// Web pushes travel in a lane of their own: a row whose requests all go to browsers' push
/// services is sent and left to answer while the dispatcher goes on; its answers are recorded at
/// the next round or, while a batch waits for APNs, within ``Dispatcher/lanePoll`` — so a slow or
/// silent push service holds up neither the batch's APNs pushes nor the next batch. Each answer
/// comes within the client's timeout from the moment the push was handed over (0.8 × the lease −
/// 1 s, at least 1 s; docs/operations.md, "Web Push"), inside the row's lease; the row stays leased until
/// its answers are recorded.
extension Dispatcher {
    /// Web pushes sent and not yet recorded.
    struct WebPushFlights: Sendable {
        /// Rows sent whose answers are not all in.
        var inFlight = 0
        /// Rows whose answers are all in, oldest first.
        var answered: [(prepared: PreparedRow, outcomes: [SendOutcome])] = []
    }

    /// Whether `prepared` goes in the lane: every request of it is a web push.
    func travelsInWebPushLane(_ prepared: PreparedRow) -> Bool {
        webPush != nil && !prepared.sends.isEmpty && prepared.sends.allSatisfy { if case .webPush = $0.request { true } else { false } }
    }

    /// Sends `prepared`'s web pushes; once the last answered, the row waits to be recorded and
    /// the dispatcher's thread is woken.
    func sendInWebPushLane(_ prepared: PreparedRow) {
        webPushFlights.withLock { $0.inFlight += 1 }
        let answers = Answers(count: prepared.sends.count)
        let left = Atomic<Int>(prepared.sends.count)
        for (index, send) in prepared.sends.enumerated() {
            // Weak: the client's thread must not hold the last reference to the dispatcher (and
            // its store), which could then be released at any moment (see `start()`).
            perform(send, index: index, into: answers) { [weak self] in
                guard left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0, let self else { return }
                let outcomes = answers.outcomes(of: prepared.sends) { _ in nil }
                let first = webPushFlights.withLock { flights in
                    flights.inFlight -= 1
                    flights.answered.append((prepared, outcomes))
                    return flights.answered.count == 1
                }
                webPushAnswered.bump()
                // The thread may be waiting for work: woken once for the answers it has not
                // taken yet, not once per answer.
                if first { store.outbox.enqueued.bump() }
            }
        }
    }

    /// Records the rows of the lane whose answers are all in; returns how many.
    func recordAnsweredWebPushes() -> Int {
        let answered = webPushFlights.withLock { flights in
            defer { flights.answered.removeAll() }
            return flights.answered
        }
        guard !answered.isEmpty else { return 0 }
        var random = SystemRandomNumberGenerator()
        // One time for all of them (they were answered since the last look): their rows
        // are completed by one statement.
        let at = configuration.clock()
        let plans = answered.map { entry in
            count(entry.outcomes, of: entry.prepared, answeredAt: at)
            return planner.plan(entry.prepared, outcomes: entry.outcomes, at: at, random: &random)
        }
        record(batch: plans)
        return plans.count
    }

    /// Waits until every web push sent has answered, at most `timeout`; true when none is left
    /// in flight.
    func waitForWebPushes(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = webPushAnswered.value
            guard webPushFlights.withLock({ $0.inFlight }) > 0 else { return true }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            webPushAnswered.waitBlocking(past: seen, timeout: min(left, .milliseconds(100)))
        }
    }
}
