import Foundation

/// How a contract's activities live, as a file gives it: stale and dismissal times, the hourly
/// priority budget and which content-state keys make a change material (`docs/contracts.md`,
/// "Contract files"; `docs/engine.md`, "Budgets and priority").
public struct ContractLifecycle: Sendable, Hashable {
    /// The longest `dismissAfter`: an ended activity stays on the lock screen at most 4 hours
    /// (`docs/devices.md`).
    public static let maximumDismissAfter: TimeInterval = 14_400
    /// The longest `staleAfter`: an activity lives at most 12 hours, 8 active and 4 ended
    /// (`docs/devices.md`), so a stale date further out never shows.
    public static let maximumStaleAfter: TimeInterval = 43_200

    /// Each update's `stale-date` is this many seconds after it is sent (0 < s ≤ 43200); nil: none.
    public var staleAfter: TimeInterval?
    /// The end's `dismissal-date` is this many seconds after it is sent (0 … 14400); nil: the
    /// server's default.
    public var dismissAfter: TimeInterval?
    /// Priority-10 pushes per activity and hour (≥ 0); nil: the server's budget.
    public var priorityBudget: Int?
    /// The content-state keys whose change is material; nil: every change is.
    public var materialKeys: [String]?

    public init(staleAfter: TimeInterval? = nil, dismissAfter: TimeInterval? = nil, priorityBudget: Int? = nil, materialKeys: [String]? = nil) {
        self.staleAfter = staleAfter
        self.dismissAfter = dismissAfter
        self.priorityBudget = priorityBudget
        self.materialKeys = materialKeys
    }

    /// Why the change from `old` to `new` content state is material, naming the material keys that
    /// changed (`status preparing → onTheWay, items changed`), or nil when only other keys did.
    ///
    /// `rev` is left out (it changes on every push); an absent key equals `null`. Without
    /// ``materialKeys`` any change is material: "the content state changed".
    public func materialChange(from old: JSONValue, to new: JSONValue) -> String? {
        guard let before = old.objectValue, let after = new.objectValue else {
            return old == new ? nil : "the content state changed"
        }
        guard let materialKeys else {
            let keys = Set(before.keys).union(after.keys).subtracting(["rev"])
            return keys.allSatisfy { (before[$0] ?? .null) == (after[$0] ?? .null) } ? nil : "the content state changed"
        }
        let changed = materialKeys.filter { $0 != "rev" && (before[$0] ?? .null) != (after[$0] ?? .null) }
        guard !changed.isEmpty else { return nil }
        return changed.map { key in
            let from = before[key] ?? .null, to = after[key] ?? .null
            guard let fromText = Self.scalarText(from), let toText = Self.scalarText(to) else { return "\(key) changed" }
            return "\(key) \(fromText) → \(toText)"
        }.joined(separator: ", ")
    }

    /// A scalar as a reason shows it (text unquoted, `–` for null, at most 40 characters), or nil
    /// for an array or an object.
    static func scalarText(_ value: JSONValue) -> String? {
        let text: String
        switch value {
        case .array, .object: return nil
        case .null: text = "–"
        case .string(let string): text = string
        default: text = value.compactText
        }
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
