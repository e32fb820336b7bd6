import Foundation

extension ContractFile {
    /// The file as UTF-8 JSON text (`docs/contracts.md`, "Contract files"): members in a fixed
    /// order, one key per line, nested types in order of first use, example objects with their
    /// members sorted, so the same file always gives the same text; `parse(file.json) == file`.
    public var json: Data { Data(ContractFileWriter(self).text.utf8) }
}

/// Writes a ``ContractFile`` as the text ``ContractFile/json`` describes.
struct ContractFileWriter {
    let file: ContractFile
    let names: ContractTypeNames

    init(_ file: ContractFile) {
        self.file = file
        self.names = ContractTypeNames(file.schema)
    }

    var text: String {
        var members = [
            ("format", Self.string(ContractFile.format)), ("type", Self.string(file.typeName)), ("version", String(file.version)),
            ("fingerprint", Self.string(file.fingerprint)), ("attributes", fieldList(file.schema.attributes, indent: "  ")),
            ("contentState", fieldList(file.schema.contentState, indent: "  ")),
        ]
        if !names.definitions.isEmpty { members.append(("types", types)) }
        var example: [(String, String)] = []
        if let attributes = file.exampleAttributes { example.append(("attributes", Self.pretty(attributes, indent: "    "))) }
        if let state = file.exampleContentState { example.append(("contentState", Self.pretty(state, indent: "    "))) }
        if !example.isEmpty { members.append(("example", Self.block(example, indent: "  "))) }
        if let lifecycle = file.lifecycle { members.append(("lifecycle", Self.lifecycle(lifecycle))) }
        if let card = file.card {
            let parts = card.parts.filter { $0.name == "lockScreen" || !$0.text.isEmpty }.map { ($0.name, Self.string($0.text)) }
            members.append(("card", Self.block(parts, indent: "  ")))
        }
        return Self.block(members, indent: "") + "\n"
    }

    /// `{"Status": {"enum": […]}, "Item": {"fields": [ … ]}}`, one type per line or block.
    private var types: String {
        let entries = names.definitions.map { definition -> (String, String) in
            switch definition.type {
            case .enumeration(_, let cases): (definition.name, "{\"enum\": [" + cases.map(Self.string).joined(separator: ", ") + "]}")
            case .object(_, let fields): (definition.name, "{\"fields\": " + fieldList(fields, indent: "    ") + "}")
            default: (definition.name, "{}")
            }
        }
        return Self.block(entries, indent: "  ")
    }

    /// `[` then one key per line, indented one step past `indent`, then `]`.
    private func fieldList(_ fields: [ContractField], indent: String) -> String {
        guard !fields.isEmpty else { return "[]" }
        let lines = fields.map { field in
            var parts = ["\"key\": " + Self.string(field.key), "\"type\": " + Self.string(names.text(of: field.type))]
            if field.isOptional { parts.append("\"optional\": true") }
            if field.since != 1 { parts.append("\"since\": \(field.since)") }
            if !field.summary.isEmpty { parts.append("\"summary\": " + Self.string(field.summary)) }
            return indent + "  {" + parts.joined(separator: ", ") + "}"
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n" + indent + "]"
    }

    private static func lifecycle(_ lifecycle: ContractLifecycle) -> String {
        var parts: [String] = []
        if let stale = lifecycle.staleAfter { parts.append("\"staleAfter\": " + JSONValue.double(stale).compactText) }
        if let dismiss = lifecycle.dismissAfter { parts.append("\"dismissAfter\": " + JSONValue.double(dismiss).compactText) }
        if let budget = lifecycle.priorityBudget { parts.append("\"priorityBudget\": \(budget)") }
        if let keys = lifecycle.materialKeys { parts.append("\"materialKeys\": [" + keys.map(string).joined(separator: ", ") + "]") }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// An object of `members` (already written values), one per line, indented one step past `indent`.
    private static func block(_ members: [(String, String)], indent: String) -> String {
        guard !members.isEmpty else { return "{}" }
        let lines = members.map { indent + "  " + string($0.0) + ": " + $0.1 }
        return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
    }

    /// Any JSON value, objects and arrays one member per line, members sorted by name; an array
    /// of scalars on one line.
    static func pretty(_ value: JSONValue, indent: String) -> String {
        switch value {
        case .object(let members) where !members.isEmpty:
            block(members.keys.sorted().map { ($0, pretty(members[$0] ?? .null, indent: indent + "  ")) }, indent: indent)
        case .array(let elements) where elements.allSatisfy(isScalar):
            "[" + elements.map(\.compactText).joined(separator: ", ") + "]"
        case .array(let elements):
            "[\n" + elements.map { indent + "  " + pretty($0, indent: indent + "  ") }.joined(separator: ",\n") + "\n" + indent + "]"
        default:
            value.compactText
        }
    }

    /// Whether `value` is neither an array nor an object.
    static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: false
        default: true
        }
    }

    /// `text` as a JSON string.
    static func string(_ text: String) -> String { JSONValue.string(text).compactText }
}
