/// Reads the keys and types of a contract file: the field lists, the type strings and the named
/// types they refer to, refusing an unknown, recursive or unused type (`docs/contracts.md`,
/// "Contract files").
struct ContractFileParser {
    /// One named object type being read, and the key of it being read: the steps of a cycle.
    private struct Frame {
        var name: String
        var key = ""
        var typeText = ""
    }

    /// The definitions of `types`, by name.
    private let definitions: [String: JSONValue]
    /// The named types read so far.
    private(set) var resolved: [String: ContractField.FieldType] = [:]
    private var stack: [Frame] = []

    /// Reads the `types` member (nil when absent): its names must be Swift identifiers other
    /// than the built-in types.
    init(types: JSONValue?) throws(ContractFileError) {
        guard let types else {
            definitions = [:]
            return
        }
        let object = try ContractFileObject(types, at: "types", expected: "an object of named types, {\"Item\": {\"fields\": […]}}")
        for name in object.members.keys.sorted() {
            if ContractTypeNames.builtIn.contains(name) {
                throw ContractFileError(.invalidName, at: "types.\(name)", "'\(name)' is a built-in type; give the type another name")
            }
            guard ContractTypeNames.isIdentifier(name) else {
                throw ContractFileError(.invalidName, at: "types.\(name)", "'\(name)' is not a Swift identifier; expected a type name such as Item")
            }
        }
        definitions = object.members
    }

    /// The names of `types` no key uses, sorted.
    var unused: [String] { definitions.keys.filter { resolved[$0] == nil }.sorted() }

    /// The fields of the array at `path` (`contentState`, `types.Item.fields`).
    mutating func fields(_ elements: [JSONValue], at path: String) throws(ContractFileError) -> [ContractField] {
        var fields: [ContractField] = []
        for (index, element) in elements.enumerated() {
            let object = try ContractFileObject(element, at: "\(path)[\(index)]", expected: "a key, {\"key\": \"name\", \"type\": \"String\"}")
            try object.check(allowed: ["key", "type", "optional", "since", "summary"])
            let key = try object.required(object.string("key", expected: "a string"), "key", expected: "the key, a string")
            let typeText = try object.required(
                object.string("type", expected: "a string such as \"String\" or \"[Item]\""), "type", expected: "the key's type, e.g. \"String\"")
            if !stack.isEmpty {
                stack[stack.count - 1].key = key
                stack[stack.count - 1].typeText = typeText
            }
            let type = try resolve(typeText, at: object.path(of: "type"))
            var field = ContractField(key, type)
            field.isOptional = try object.bool("optional", expected: "true or false") ?? false
            field.since = try object.int("since", expected: "a whole number, the version that added the key") ?? 1
            field.summary = try object.string("summary", expected: "a string, one line") ?? ""
            fields.append(field)
        }
        return fields
    }

    /// The deepest a key's type may nest arrays and named objects: far beyond what fits in
    /// ActivityKit's 4 KB, and a bound on every walk of the schema.
    static let maximumDepth = 32

    /// The type a type string names: `String`, `Int`, `Double`, `Bool`, `Date`, `[T]` or a name
    /// from `types`.
    mutating func resolve(_ text: String, at path: String) throws(ContractFileError) -> ContractField.FieldType {
        var inner = Substring(text)
        var arrays = 0
        while inner.hasPrefix("[") {
            guard inner.count >= 3, inner.hasSuffix("]") else {
                throw ContractFileError(
                    .unknownType, at: path, "'\(Self.cut(text))' is not a type: an array is [T] with a type inside, e.g. [String]")
            }
            inner = inner.dropFirst().dropLast()
            arrays += 1
            try checkDepth(arrays, of: text, at: path)
        }
        try checkDepth(arrays, of: text, at: path)
        var type = try resolveName(String(inner), in: text, at: path)
        for _ in 0..<arrays { type = .array(type) }
        return type
    }

    /// Refuses a type string nesting `arrays` arrays inside the named types being read when that
    /// is more than ``maximumDepth``.
    private func checkDepth(_ arrays: Int, of text: String, at path: String) throws(ContractFileError) {
        guard arrays + stack.count >= Self.maximumDepth else { return }
        throw ContractFileError(
            .tooDeep, at: path,
            "'\(Self.cut(text))' nests more than \(Self.maximumDepth) deep; a key's type nests at most \(Self.maximumDepth) arrays and objects")
    }

    /// The type `name` (no array) names; `text` is the whole type string, for messages.
    private mutating func resolveName(_ name: String, in text: String, at path: String) throws(ContractFileError) -> ContractField.FieldType {
        switch name {
        case "String": return .string
        case "Int": return .int
        case "Double": return .double
        case "Bool": return .bool
        case "Date": return .date
        default: break
        }
        if let type = resolved[name] { return type }
        if definitions[name] != nil { return try resolveNamed(name, at: path) }
        if name.hasSuffix("?") {
            let message =
                text == name
                ? "'\(Self.cut(text))' is not a type: a key that may be null or absent has \"optional\": true and the type '\(name.dropLast())'"
                : "'\(Self.cut(text))' is not a type: an array's elements cannot be optional (the derivation refuses them too)"
            throw ContractFileError(.unknownType, at: path, message)
        }
        var message = "'\(Self.cut(name))' is not a type: expected String, Int, Double, Bool, Date, [T] or a name from types"
        if let suggestion = NameSuggestion.closest(to: name, among: ContractTypeNames.builtIn + definitions.keys.sorted()).first {
            message += ". Did you mean '\(suggestion)'?"
        }
        throw ContractFileError(.unknownType, at: path, message)
    }

    /// Reads the definition of `name`, an enum or an object, refusing one that contains itself.
    private mutating func resolveNamed(_ name: String, at path: String) throws(ContractFileError) -> ContractField.FieldType {
        if let start = stack.firstIndex(where: { $0.name == name }) {
            let steps = stack[start...].flatMap { [$0.name, $0.key] } + [stack[stack.count - 1].typeText]
            throw ContractFileError(
                .recursiveType, at: path,
                "\(name) contains itself (\(steps.joined(separator: " → "))); a contract is a finite tree of keys: leave the recursive key out")
        }
        let definitionPath = "types.\(name)"
        let expected = "an enum {\"enum\": [\"case\", …]} or an object {\"fields\": [keys]}"
        let definition = try ContractFileObject(definitions[name] ?? .null, at: definitionPath, expected: expected)
        try definition.check(allowed: ["enum", "fields"])
        let cases = try definition.strings("enum", expected: "a string, the case's raw value")
        let fields = try definition.array("fields", expected: "an array of keys")
        let type: ContractField.FieldType
        switch (cases, fields) {
        case (let cases?, nil):
            type = .enumeration(name: name, cases: cases)
        case (nil, let fields?):
            stack.append(Frame(name: name))
            type = .object(name: name, fields: try self.fields(fields, at: definitionPath + ".fields"))
            stack.removeLast()
        case (.some, .some):
            throw ContractFileError(.mistypedMember, at: definitionPath, "has both enum and fields; expected \(expected)")
        case (nil, nil):
            throw ContractFileError(.missingMember, at: definitionPath, "has neither enum nor fields; expected \(expected)")
        }
        resolved[name] = type
        return type
    }

    /// `text` for a message: at most 60 characters, then `…`.
    static func cut(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
