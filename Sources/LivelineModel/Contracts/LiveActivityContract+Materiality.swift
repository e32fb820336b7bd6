import Foundation

/// Which changes are *material* (`docs/engine.md`, "Budgets and priority"): they go at priority 10
/// while the activity's hourly budget lasts; the others go at priority 5 and may wait.
extension LiveActivityContract {
    /// Every change of what the card shows is material, unless a contract says otherwise.
    public static func materialChange(from old: ContentState, to new: ContentState) -> String? {
        old == new ? nil : "the content state changed"
    }
}

extension ContractRegistry {
    /// Why the change from `old` to `new` content state of the contract `typeName` is material,
    /// or nil when it is not (see ``LiveActivityContract/materialChange(from:to:)``). An unknown
    /// type counts every change as material.
    public func materialChange(typeName: String, old: Data?, new: Data) -> String? {
        guard let contract = contract(named: typeName) else { return "the content state changed" }
        return contract.materialChange(fromJSON: old, toJSON: new)
    }
}
