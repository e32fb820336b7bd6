import Foundation
import LivelineStore

/// What a sync's render decides from the context it read (`docs/engine.md`, "Budgets and
/// priority"): whether the change is material and why, whether a quiet change waits for the
/// debounce, and the priorities of its pushes. Pure: its rules are tested without a database.
struct SyncPlanner: Sendable {
    let configuration: EngineConfiguration

    /// What the render read of the context and its row.
    struct Facts: Sendable, Hashable {
        var rev: Int
        var activityType: String
        var ended: Bool
        var hasAlert: Bool
        /// The priority a writer asked for (10 or 5), if any.
        var priorityHint: Int?
        var lastSentAt: Date?
        /// The row is the context's whole fan-out, not one target's catching up.
        var fanOut: Bool

        init(context: ContextRecord, fanOut: Bool) {
            self.init(
                rev: context.rev, activityType: context.activityType, ended: context.state == .ended, hasAlert: context.alert != nil,
                priorityHint: context.priorityHint, lastSentAt: context.lastSentAt, fanOut: fanOut)
        }

        init(rev: Int, activityType: String, ended: Bool, hasAlert: Bool, priorityHint: Int?, lastSentAt: Date?, fanOut: Bool) {
            self.rev = rev
            self.activityType = activityType
            self.ended = ended
            self.hasAlert = hasAlert
            self.priorityHint = priorityHint
            self.lastSentAt = lastSentAt
            self.fanOut = fanOut
        }
    }

    /// Why the change matters (it goes at 10 while the budget allows), nil when it is quiet: the
    /// end, an alert, a writer's priority, else the contract's verdict on what changed
    /// (`contentMaterial`, asked only then).
    func changeMaterial(_ facts: Facts, contentMaterial: () -> String?) -> String? {
        if facts.ended { return "the end" }
        if facts.hasAlert { return "an alert" }
        switch facts.priorityHint {
        case 10: return "asked for priority 10"
        case 5: return nil
        default: return contentMaterial()
        }
    }

    /// When a quiet fan-out waits for the debounce after the context's last push, the time it
    /// goes; nil when it goes now (a material change, a writer's priority, nothing sent yet, or
    /// the debounce over).
    func debounce(_ facts: Facts, changeMaterial: String?, now: Date) -> Date? {
        guard facts.fanOut, changeMaterial == nil, facts.priorityHint == nil, let lastSent = facts.lastSentAt else { return nil }
        let until = lastSent.addingTimeInterval(configuration.quietChangeDebounce)
        return now < until ? until : nil
    }

    /// Why a postponed quiet change waits.
    var debounceReason: String { "quiet change (not material): waits for the \(Int(configuration.quietChangeDebounce)) s debounce" }

    /// Whether a one-target row's materiality depends on what the target received: a quiet
    /// change the writer did not ask to go at 5.
    func asksTargetRevision(_ facts: Facts) -> Bool { !facts.fanOut && facts.priorityHint != 5 }

    /// A one-target row is material when the target has not got `contextRev` yet.
    static func targetMaterial(receivedRev: Int?, contextRev: Int) -> String? {
        guard let receivedRev else { return "catching up (nothing delivered yet)" }
        return receivedRev < contextRev ? "catching up from rev \(receivedRev)" : nil
    }

    /// The priorities and notes of the pushes, for `material` (nil: every push at 5, saying why).
    func priorities(_ facts: Facts, material: String?) -> PushPriorities {
        PushPriorities(
            event: facts.ended ? "end" : "update", rev: facts.rev, activityType: facts.activityType, material: material,
            unmaterial: facts.priorityHint == 5
                ? "asked for priority 5" : facts.fanOut ? "quiet change (not material)" : "a resend of the state already pushed",
            hasAlert: facts.hasAlert, configuration: configuration)
    }
}
