import Foundation

/// Which changes are *material* (`docs/engine.md`, "Budgets and priority"): they go at priority 10
/// while the activity's hourly budget lasts; the others go at priority 5 and may wait.
extension LiveActivityContract {
    /// Every change of what the card shows is material, unless a contract says otherwise.
    public static func materialChange(from old: ContentState, to new: ContentState) -> String? {
        old == new ? nil : "the content state changed"
    }

    /// ``materialChange(from:to:)`` on JSON as the engine holds it. The contract's `rev` key is
    /// left out of the comparison (it changes on every push); no previous state, or one that no
    /// longer decodes, makes any change material.
    static func materialChange(fromJSON old: Data?, toJSON new: Data) -> String? {
        guard let old, var oldObject = try? JSONValue(json: old).objectValue, let newObject = try? JSONValue(json: new).objectValue else {
            return "the first push"
        }
        oldObject["rev"] = newObject["rev"]
        let decoder = JSONDecoder()
        guard let oldState = try? decoder.decode(ContentState.self, from: JSONValue.object(oldObject).compactJSON),
            let newState = try? decoder.decode(ContentState.self, from: new)
        else {
            return "the first push"
        }
        return materialChange(from: oldState, to: newState)
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
