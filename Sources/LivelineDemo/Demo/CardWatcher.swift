import Foundation
import Liveline
import LivelineCards
import LivelineCookSuggestModel
import LivelineDevices
import LivelineModel
import LivelineScheduling
import LivelineShoppingModel
import LivelineTransitModel

/// Narrates what the phones show (docs/operations.md, "The demo"): four times a second it lets time pass on each
/// phone (stale dates, dismissals: `SimulatedDevice.tick`), and prints one line per card change —
/// the phones that show the same change at once share the line — one per push a phone
/// ignored, with the phone's reason, and one per widget reload (docs/engine.md, "Widget pushes").
final class CardWatcher: @unchecked Sendable {
    private let household: DemoHousehold
    private let narrator: DemoNarrator
    private let queue = DispatchQueue(label: "liveline-demo-cards")
    private var timer: RepeatingTimer?
    /// Touched on `queue` only: what each activity showed when last looked at, and how much of
    /// each phone's log was read.
    private var shown: [String: (SimulatedActivity.State, JSONValue)] = [:]
    private var logRead: [String: Int] = [:]

    init(household: DemoHousehold, narrator: DemoNarrator) {
        self.household = household
        self.narrator = narrator
    }

    func start() {
        timer = RepeatingTimer(every: 0.25, firstAfter: 0, queue: queue) { [self] in look() }
    }

    /// Stops watching; the last changes are printed first.
    func stop() {
        queue.sync {
            timer?.cancel()
            look()
        }
    }

    private func look() {
        var changes: [(line: String, phone: String)] = []
        for phone in household.phones {
            household.fleet.tick(device: phone.id)
            let log = phone.device.log
            for entry in log.dropFirst(logRead[phone.id] ?? 0) {
                if entry.verdict == .dropped {
                    narrator.say("phone", "\(phone.id) ignored a push\(entry.contextKey.map { " for \($0)" } ?? ""): \(entry.message)")
                } else if entry.verdict == .applied, entry.message.hasPrefix("widget ") {
                    narrator.say("widget", "\(phone.id): \(entry.message)")
                }
            }
            logRead[phone.id] = log.count
            for activity in phone.device.activities {
                if let (state, content) = shown[activity.id], state == activity.state, content == activity.contentState { continue }
                shown[activity.id] = (activity.state, activity.contentState)
                if activity.isVisible, let line = Self.describe(activity) { changes.append((line, phone.id)) }
            }
        }
        var order: [String] = []
        var phones: [String: [String]] = [:]
        for change in changes {
            if phones[change.line] == nil { order.append(change.line) }
            phones[change.line, default: []].append(change.phone)
        }
        for line in order { narrator.say("card", "\(line) — \(phones[line]!.joined(separator: ", "))") }
    }

    /// The built-in contracts, the demo's.
    static let contracts = Assembly.contracts()

    /// One line of what `activity`'s card shows, as the widget would render it.
    static func describe(_ activity: SimulatedActivity) -> String? {
        let decoder = JSONDecoder()
        let data = activity.contentState.compactJSON
        let badge =
            switch activity.state {
            case .ended, .dismissed: " (ended)"
            case .stale: " (out of date)"
            case .pending: " (scheduled)"
            case .active: ""
            }
        let rev = activity.rev.map { " [rev \($0)]" } ?? ""
        switch activity.attributesType {
        case ShoppingActivityAttributes.typeName:
            guard let state = try? decoder.decode(ShoppingActivityAttributes.ContentState.self, from: data) else { return nil }
            var parts = ["🛒 \(state.open) open · \(state.done) done of \(state.total)"]
            if let story = state.lastEventText { parts.append(story) }
            return parts.joined(separator: " · ") + badge + rev
        case CookSuggestActivityAttributes.typeName:
            guard let state = try? decoder.decode(CookSuggestActivityAttributes.ContentState.self, from: data) else { return nil }
            return "🍳 \(state.statusLabel)" + badge + rev
        case TripLiveActivityAttributes.typeName:
            guard let card = CardRenderer.render(activity, registry: Self.contracts) else { return nil }
            return card.lockScreen.replacingOccurrences(of: "\n", with: ": ") + rev
        default:
            return nil
        }
    }
}
