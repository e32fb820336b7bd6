import Foundation
import LivelineClient
import LivelineDevices
import LivelineModel

/// The check at the end of a demo (README, "Quick start"): for every phone and every card it should
/// show or shows, whether the phone shows the server's truth — the revision and content state of
/// the context's current snapshot (pulled as the phone's app pulls it), or, for an ended context,
/// an ended card. Phones are given until a deadline to get there (pushes in flight, pulls).
enum DemoTruthCheck {
    struct Verdict: Sendable, Hashable {
        var phone: String
        var contextKey: String
        var matches: Bool
        /// What the phone shows against the server, in words.
        var detail: String
    }

    /// The verdicts once every card matches, or as they stand at `timeout` seconds.
    static func run(_ household: DemoHousehold, timeout: TimeInterval) async -> [Verdict] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            await household.fleet.settle(timeout: 2)
            let verdicts = await compare(household)
            if verdicts.allSatisfy(\.matches) || Date() >= deadline { return verdicts }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    static func compare(_ household: DemoHousehold) async -> [Verdict] {
        var verdicts: [Verdict] = []
        for phone in household.phones {
            for key in household.contexts(of: phone) {
                let card = phone.device.activities.last { $0.contextKey == key }
                let truth: Snapshot<JSONValue>
                do {
                    guard case .snapshot(let snapshot) = try await phone.client.pull(contextKey: key, sinceRev: nil) else {
                        verdicts.append(Verdict(phone: phone.id, contextKey: key, matches: false, detail: "the server answered no snapshot"))
                        continue
                    }
                    truth = snapshot
                } catch {
                    verdicts.append(Verdict(phone: phone.id, contextKey: key, matches: false, detail: "pulling the server's truth failed: \(error)"))
                    continue
                }
                verdicts.append(verdict(card, truth, phone: phone.id, key: key))
            }
        }
        return verdicts
    }

    /// `card` (nil: the phone has none) against the server's `truth`.
    static func verdict(_ card: SimulatedActivity?, _ truth: Snapshot<JSONValue>, phone: String, key: String) -> Verdict {
        func result(_ matches: Bool, _ detail: String) -> Verdict { Verdict(phone: phone, contextKey: key, matches: matches, detail: detail) }
        guard let card else { return result(false, "no card; the server is at rev \(truth.rev)\(truth.ended ? " (ended)" : "")") }
        let shown = card.rev.map { "rev \($0)" } ?? "no rev"
        let cardEnded = card.state == .ended || card.state == .dismissed
        switch (cardEnded, truth.ended) {
        case (true, true):
            return result(true, "ended on both (phone \(shown), server rev \(truth.rev))")
        case (true, false):
            return result(false, "the card ended (\(card.state.rawValue), \(shown)), but the server's context goes on at rev \(truth.rev)")
        case (false, true):
            return result(false, "the card still shows \(shown) as \(card.state.rawValue), but the server ended the context at rev \(truth.rev)")
        case (false, false):
            let stale = card.state == .stale ? " (marked out of date)" : ""
            // A contract without a revision in its state (trips) is compared by the state alone.
            guard card.rev == nil || card.rev == truth.rev else { return result(false, "shows \(shown), the server is at rev \(truth.rev)") }
            guard card.contentState == truth.state else {
                return result(false, "shows another content state than the server's at rev \(truth.rev): \(card.contentState) against \(truth.state)")
            }
            return result(true, card.rev == nil ? "the server's state at rev \(truth.rev)\(stale)" : "rev \(truth.rev), the server's state\(stale)")
        }
    }
}
