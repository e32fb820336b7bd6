import Foundation
import LivelinePushWire
import LivelineStore

/// Each target's priority and note (`docs/engine.md`, "Budgets and priority"): a material push at
/// 10 while the target's hourly ledger allows (or it carries an alert), at 5 once it is used; a
/// change that is not material at 5. The timeline's note of each push (`update rev 3 · p10: …`) is
/// made once per distinct one: a fan-out to 100,000 tokens has a handful (most tokens have used
/// as much of the hour's budget as each other).
struct PushPriorities: Sendable {
    /// What the note's wording depends on besides the change.
    private struct Reason: Hashable {
        var used: Int
        var limit: Int
        var immediate: Bool
    }

    let event: String
    let rev: Int
    let activityType: String
    /// Why the change matters (nil: it does not).
    let material: String?
    let hasAlert: Bool
    let configuration: EngineConfiguration
    /// The note of a push that is not material.
    private let unmaterialNote: String
    private var notes: [Reason: String] = [:]

    /// `unmaterial`: why a push goes at 5 when the change is not material.
    init(
        event: String, rev: Int, activityType: String, material: String?, unmaterial: String, hasAlert: Bool, configuration: EngineConfiguration
    ) {
        self.event = event
        self.rev = rev
        self.activityType = activityType
        self.material = material
        self.hasAlert = hasAlert
        self.configuration = configuration
        unmaterialNote = Self.note(event, rev, .considerPower, unmaterial)
    }

    private static func note(_ event: String, _ rev: Int, _ priority: APNSPriority, _ why: String) -> String {
        "\(event) rev \(rev) · p\(priority.rawValue): \(why)"
    }

    /// The push to `target`; `used`: its priority-10 pushes accepted this hour (a token's comes with it).
    mutating func plan(_ target: OutboxTarget, token: UpdateTarget?, used: Int? = nil) -> PlannedPush {
        guard let material else { return PlannedPush(target: target, token: token, priority: .considerPower, note: unmaterialNote) }
        let limit = configuration.priorityBudget(type: activityType, frequent: token?.frequentPushesEnabled ?? false)
        let used = token?.priorityPushesAccepted ?? used ?? 0
        let immediate = used < limit || hasAlert
        let priority: APNSPriority = immediate ? .immediate : .considerPower
        let reason = Reason(used: used, limit: limit, immediate: immediate)
        let text: String
        if let known = notes[reason] {
            text = known
        } else {
            text = Self.note(
                event, rev, priority,
                immediate
                    ? "material: \(material); priority-10 push \(used + 1) of \(limit) this hour"
                    : "material: \(material), but the hour's budget is used (\(used) of \(limit) priority-10 pushes)")
            notes[reason] = text
        }
        return PlannedPush(target: target, token: token, priority: priority, note: text, budgetLimited: !immediate)
    }
}
