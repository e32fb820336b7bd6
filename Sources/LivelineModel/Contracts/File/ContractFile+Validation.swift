import Foundation

extension ContractFile {
    /// Checks the rules of a contract file that its values can break (`docs/contracts.md`, "Contract
    /// files"); ``parse(_:)`` and ``derived(attributes:contentState:typeName:version:example:lifecycle:card:)``
    /// run it. The first problem is thrown, with its place in the file as ``json`` writes it.
    ///
    /// `type` is a Swift identifier and `version` ≥ 1; keys are non-empty and unique per object;
    /// `since` is 1 … `version`, and a key with `since` > 1 is optional (`docs/contracts.md`,
    /// "Versioning and compatibility"); an enum has cases, each once; the example matches the schema
    /// (the payload check's rules, a date's plausibility left out); lifecycle numbers are in range
    /// and `materialKeys` name content-state keys; card placeholders name keys.
    public func validate() throws(ContractFileError) {
        guard ContractTypeNames.isIdentifier(typeName) else {
            throw ContractFileError(
                .invalidName, at: "type",
                "'\(typeName)' is not a Swift identifier; expected the name of the app's ActivityAttributes type, e.g. DeliveryActivityAttributes")
        }
        guard (1...Self.maximumVersion).contains(version) else {
            throw ContractFileError(
                .invalidVersion, at: "version",
                "is \(version); expected 1 to \(Self.maximumVersion) (a contract's first version is 1; the server stores it in 32 bits)")
        }
        try checkFields(schema.attributes, at: "attributes")
        try checkFields(schema.contentState, at: "contentState")
        for definition in ContractTypeNames(schema).definitions {
            switch definition.type {
            case .enumeration(_, let cases): try Self.checkCases(cases, at: "types.\(definition.name).enum")
            case .object(_, let fields): try checkFields(fields, at: "types.\(definition.name).fields")
            default: break
            }
        }
        try checkExample(exampleAttributes, fields: schema.attributes, owner: typeName, at: "example.attributes")
        try checkExample(exampleContentState, fields: schema.contentState, owner: typeName + ".ContentState", at: "example.contentState")
        if let lifecycle { try checkLifecycle(lifecycle) }
        if let card { try checkCard(card) }
    }

    private func checkFields(_ fields: [ContractField], at path: String) throws(ContractFileError) {
        var seen: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            let place = "\(path)[\(index)]"
            guard !field.key.isEmpty else {
                throw ContractFileError(.invalidName, at: place + ".key", "is empty; expected the Swift property name")
            }
            if let first = seen[field.key] {
                throw ContractFileError(.duplicateKey, at: place + ".key", "'\(field.key)' is also the key of \(path)[\(first)]; each key once")
            }
            seen[field.key] = index
            guard (1...version).contains(field.since) else {
                throw ContractFileError(
                    .invalidSince, at: place + ".since",
                    "is \(field.since); expected 1 … \(version), the version that added the key (the file's version is \(version))")
            }
            if field.since > 1, !field.isOptional {
                throw ContractFileError(
                    .addedKeyNotOptional, at: place + ".optional",
                    "'\(field.key)' was added in version \(field.since) but is required: states stored under an earlier version lack it; "
                        + "expected \"optional\": true")
            }
        }
    }

    private static func checkCases(_ cases: [String], at path: String) throws(ContractFileError) {
        guard !cases.isEmpty else {
            throw ContractFileError(.invalidEnum, at: path, "has no cases; expected at least one String raw value")
        }
        var seen: [String: Int] = [:]
        for (index, name) in cases.enumerated() {
            if let first = seen[name] {
                throw ContractFileError(.invalidEnum, at: "\(path)[\(index)]", "'\(name)' is also case \(path)[\(first)]; each case once")
            }
            seen[name] = index
        }
    }

    /// The first thing the payload check finds wrong with an example, if any.
    private func checkExample(_ example: JSONValue?, fields: [ContractField], owner: String, at path: String) throws(ContractFileError) {
        guard let example else { return }
        var problems: [PayloadProblem] = []
        // Plausibility of a date depends on the day the check runs: an example is checked for its
        // shape only, so that a file valid today stays valid.
        SchemaValidator(now: Date(timeIntervalSinceReferenceDate: 0)).validate(example, fields: fields, owner: owner, at: path, into: &problems)
        if let problem = problems.first(where: { $0.code != .implausibleDate }) {
            throw ContractFileError(.exampleMismatch, at: problem.keyPath, problem.message)
        }
    }

    private func checkLifecycle(_ lifecycle: ContractLifecycle) throws(ContractFileError) {
        if let stale = lifecycle.staleAfter, !(stale > 0 && stale <= ContractLifecycle.maximumStaleAfter) {
            throw ContractFileError(
                .outOfRange, at: "lifecycle.staleAfter",
                "is \(JSONValue.double(stale).compactText); expected more than 0 and at most 43200 seconds "
                    + "(each update's stale-date is this long after it; an activity lives at most 12 hours)")
        }
        if let dismiss = lifecycle.dismissAfter, !(0...ContractLifecycle.maximumDismissAfter).contains(dismiss) {
            throw ContractFileError(
                .outOfRange, at: "lifecycle.dismissAfter",
                "is \(JSONValue.double(dismiss).compactText); expected 0 … 14400 seconds: an ended activity stays at most 4 hours")
        }
        if let budget = lifecycle.priorityBudget, budget < 0 {
            throw ContractFileError(.outOfRange, at: "lifecycle.priorityBudget", "is \(budget); expected 0 or more priority-10 pushes per hour")
        }
        let keys = schema.contentState.map(\.key)
        var seen: Set<String> = []
        for (index, key) in (lifecycle.materialKeys ?? []).enumerated() {
            let place = "lifecycle.materialKeys[\(index)]"
            guard key != "rev" else {
                throw ContractFileError(.unknownKey, at: place, "'rev' changes on every push, so it is never material; leave it out")
            }
            guard keys.contains(key) else {
                throw ContractFileError(.unknownKey, at: place, Self.noKey("'\(key)' is not a content-state key", key, among: keys))
            }
            guard seen.insert(key).inserted else {
                throw ContractFileError(.duplicateKey, at: place, "'\(key)' is listed twice; each key once")
            }
        }
    }

    private func checkCard(_ card: CardTemplate) throws(ContractFileError) {
        let stateKeys = schema.contentState.map(\.key), attributeKeys = schema.attributes.map(\.key)
        for part in card.parts {
            let (segments, problem) = CardTemplate.segments(of: part.text)
            if let problem { throw ContractFileError(.invalidPlaceholder, at: "card.\(part.name)", problem) }
            for segment in segments {
                switch segment {
                case .contentState(let key) where !stateKeys.contains(key):
                    var message = Self.noKey("{\(key)} names no content-state key", key, among: stateKeys)
                    if attributeKeys.contains(key) { message += ". Did you mean '{attributes.\(key)}'?" }
                    throw ContractFileError(.unknownKey, at: "card.\(part.name)", message)
                case .attribute(let key) where !attributeKeys.contains(key):
                    throw ContractFileError(
                        .unknownKey, at: "card.\(part.name)", Self.noKey("{attributes.\(key)} names no attribute", key, among: attributeKeys))
                default:
                    continue
                }
            }
        }
    }

    /// `lead`, then the keys there are and the one meant: "…; expected one of a, b. Did you mean 'a'?".
    private static func noKey(_ lead: String, _ key: String, among keys: [String]) -> String {
        var message = lead + (keys.isEmpty ? "; there are none" : "; expected one of \(keys.joined(separator: ", "))")
        if let suggestion = NameSuggestion.closest(to: key, among: keys).first { message += ". Did you mean '\(suggestion)'?" }
        return message
    }
}
