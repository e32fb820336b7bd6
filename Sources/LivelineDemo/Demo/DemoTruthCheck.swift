import Foundation
import LivelineClient
import LivelineDevices
import LivelineModel

/// The check at the end of a demo (docs/operations.md, "The demo"): for every phone and every card it should
/// show or shows, whether the phone shows the server's truth — the revision and content state of
/// the context's current snapshot (pulled as the phone's app pulls it), or, for an ended context,
/// an ended card showing the last revision the server pushed of it (the end's final state: what
/// changes after the end, such as a list that goes on growing, no card shows). Phones are given
/// until a deadline to get there (pushes in flight, pulls).
enum DemoTruthCheck {
    struct Verdict: Sendable, Hashable {
        var phone: String
        var contextKey: String
        var matches: Bool
        /// What the phone shows against the server, in words.
        var detail: String
    }

    /// The verdicts once every card matches, or as they stand at `timeout` seconds.
    /// `lastPushed`: the newest revision of a context APNs accepted a push of.
    static func run(_ household: DemoHousehold, timeout: TimeInterval, lastPushed: @Sendable (String) -> Int?) async -> [Verdict] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            await household.fleet.settle(timeout: 2)
            let verdicts = await compare(household, lastPushed: lastPushed)
            if verdicts.allSatisfy(\.matches) || Date() >= deadline { return verdicts }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    static func compare(_ household: DemoHousehold, lastPushed: @Sendable (String) -> Int?) async -> [Verdict] {
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
                verdicts.append(verdict(card, truth, lastPushed: lastPushed(key), phone: phone.id, key: key))
            }
        }
        return verdicts
    }

    /// `card` (nil: the phone has none) against the server's `truth`; `lastPushed`, the newest
    /// revision of the context APNs accepted (for an ended context: the end's).
    static func verdict(_ card: SimulatedActivity?, _ truth: Snapshot<JSONValue>, lastPushed: Int?, phone: String, key: String) -> Verdict {
        func result(_ matches: Bool, _ detail: String) -> Verdict { Verdict(phone: phone, contextKey: key, matches: matches, detail: detail) }
        guard let card else { return result(false, "no card; the server is at rev \(truth.rev)\(truth.ended ? " (ended)" : "")") }
        let shown = card.rev.map { "rev \($0)" } ?? "no rev"
        let cardEnded = card.state == .ended || card.state == .dismissed
        switch (cardEnded, truth.ended) {
        case (true, true):
            // A contract without a revision in its state (trips): ended on both is all there is to compare.
            guard let rev = card.rev else { return result(true, "ended on both (server rev \(truth.rev))") }
            guard let pushed = lastPushed, rev >= pushed else {
                return result(false, "the card ended at \(shown), but the server's last push of it was rev \(lastPushed.map(String.init) ?? "none")")
            }
            return result(true, "ended on both, with the server's last push (rev \(rev); the context is at rev \(truth.rev))")
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
