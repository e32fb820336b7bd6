/// Whether a new version of a contract keeps working for what the old one left behind
/// (`docs/contracts.md`, "Compatibility of two contract files"): an app built with OLD is
/// installed, the server now sends states of NEW, and contexts stored under OLD remain.
///
/// Breaking: a key OLD requires removed (a removed key and an added one of the same type read as
/// a rename), a type changed, an optional key made required or a required one optional, a
/// required key added, an enum case added. Compatible: an optional key added, an optional key
/// removed, an enum case removed, a summary edited. Nested objects are compared key by key; the
/// names of nested types do not matter to decoding.
public enum ContractCompatibility {
    /// Every change from `old` to `new`, attributes first, each list in OLD's key order with the
    /// added keys after.
    public static func changes(from old: ContractSchema, to new: ContractSchema) -> [ContractChange] {
        compare(old.attributes, new.attributes, at: "attributes") + compare(old.contentState, new.contentState, at: "contentState")
    }

    private static func compare(_ old: [ContractField], _ new: [ContractField], at path: String) -> [ContractChange] {
        var changes: [ContractChange] = []
        let added = new.filter { field in !old.contains { $0.key == field.key } }
        for before in old {
            let place = path + "." + before.key
            guard let after = new.first(where: { $0.key == before.key }) else {
                changes.append(removal(of: before, at: place, added: added))
                continue
            }
            changes += compare(before, after, at: place)
        }
        for field in added {
            let place = path + "." + field.key
            changes.append(
                field.isOptional
                    ? ContractChange(.keyAdded, at: place, isBreaking: false, "added as optional; an app built with the old contract ignores it")
                    : ContractChange(
                        .keyAdded, at: place, isBreaking: true,
                        "added as required; states stored under the old contract lack it, so they no longer decode (add it as optional)"))
        }
        return changes
    }

    private static func removal(of field: ContractField, at path: String, added: [ContractField]) -> ContractChange {
        guard !field.isOptional else {
            return ContractChange(.keyRemoved, at: path, isBreaking: false, "removed; it was optional, so the old contract decodes states without it")
        }
        var message = "removed; an app built with the old contract requires it and drops every state without it"
        let sameType = added.filter { ContractSchema.canonical($0.type) == ContractSchema.canonical(field.type) }.map(\.key)
        if let renamed = NameSuggestion.closest(to: field.key, among: sameType).first ?? (sameType.count == 1 ? sameType.first : nil) {
            message += ". Renamed to '\(renamed)'?"
        }
        return ContractChange(.keyRemoved, at: path, isBreaking: true, message)
    }

    private static func compare(_ old: ContractField, _ new: ContractField, at path: String) -> [ContractChange] {
        var changes: [ContractChange] = []
        if old.isOptional, !new.isOptional {
            changes.append(
                ContractChange(.madeRequired, at: path, isBreaking: true, "made required; states stored under the old contract may lack it"))
        } else if !old.isOptional, new.isOptional {
            changes.append(
                ContractChange(
                    .madeOptional, at: path, isBreaking: true,
                    "made optional; an app built with the old contract requires it and drops a state where it is null or absent"))
        }
        changes += compare(old.type, new.type, at: path, key: old.key)
        if old.summary != new.summary {
            changes.append(ContractChange(.summaryChanged, at: path, isBreaking: false, "summary changed to \"\(new.summary)\""))
        }
        return changes
    }

    private static func compare(_ old: ContractField.FieldType, _ new: ContractField.FieldType, at path: String, key: String) -> [ContractChange] {
        switch (old, new) {
        case (.array(let before), .array(let after)):
            return compare(before, after, at: path + "[]", key: key)
        case (.object(_, let before), .object(_, let after)):
            return compare(before, after, at: path)
        case (.enumeration(let name, let before), .enumeration(_, let after)):
            let added = after.filter { !before.contains($0) }.map { value in
                ContractChange(
                    .caseAdded, at: path, isBreaking: true,
                    "case '\(value)' added to \(name); an app built with the old contract drops every state whose \(key) is '\(value)' "
                        + "(the per-push check still lets states with the old cases through)")
            }
            let removed = before.filter { !after.contains($0) }.map { value in
                ContractChange(
                    .caseRemoved, at: path, isBreaking: false,
                    "case '\(value)' removed from \(name); the old contract decodes the cases left (a stored state that uses it is refused until it changes)"
                )
            }
            return added + removed
        default:
            guard ContractSchema.canonical(old) != ContractSchema.canonical(new) else { return [] }
            return [
                ContractChange(
                    .typeChanged, at: path, isBreaking: true,
                    "type changed from \(old) to \(new); an app built with the old contract drops every state where it has a value")
            ]
        }
    }
}
