/// One JSON object of a contract file and where it is: reads its members, naming the member's
/// path and what was expected when one is missing, mistyped or unknown (`docs/contracts.md`,
/// "Contract files").
struct ContractFileObject {
    let members: [String: JSONValue]
    /// Where the object is, e.g. `contentState[2]`; empty for the file.
    let path: String

    /// `value` as an object at `path`; else an error saying it must be `expected`.
    init(_ value: JSONValue, at path: String, expected: String) throws(ContractFileError) {
        guard let members = value.objectValue else {
            throw ContractFileError(.mistypedMember, at: path, "expected \(expected), found \(Self.found(value))")
        }
        self.members = members
        self.path = path
    }

    /// Refuses a member not in `allowed`, suggesting the one meant.
    func check(allowed: [String]) throws(ContractFileError) {
        for name in members.keys.sorted() where !allowed.contains(name) {
            var message = "is not a member of this object; expected \(allowed.joined(separator: ", "))"
            if let suggestion = NameSuggestion.closest(to: name, among: allowed).first { message += ". Did you mean '\(suggestion)'?" }
            throw ContractFileError(.unknownMember, at: path(of: name), message)
        }
    }

    /// The path of the member `name`.
    func path(of name: String) -> String { path.isEmpty ? name : path + "." + name }

    /// The member `name`, nil when absent or `null`.
    func value(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    func string(_ name: String, expected: String) throws(ContractFileError) -> String? {
        guard let value = value(name) else { return nil }
        guard let text = value.stringValue else { throw mistyped(name, expected, value) }
        return text
    }

    func int(_ name: String, expected: String) throws(ContractFileError) -> Int? {
        guard let value = value(name) else { return nil }
        switch value {
        case .int(let number): return number
        case .double(let number) where number == number.rounded() && abs(number) < 9e15: return Int(number)
        default: throw mistyped(name, expected, value)
        }
    }

    func number(_ name: String, expected: String) throws(ContractFileError) -> Double? {
        guard let value = value(name) else { return nil }
        guard let number = value.numberValue else { throw mistyped(name, expected, value) }
        return number
    }

    func bool(_ name: String, expected: String) throws(ContractFileError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw mistyped(name, expected, value) }
        return flag
    }

    func array(_ name: String, expected: String) throws(ContractFileError) -> [JSONValue]? {
        guard let value = value(name) else { return nil }
        guard case .array(let elements) = value else { throw mistyped(name, expected, value) }
        return elements
    }

    /// A member the object must have: `value` as read, else an error naming `name` as missing.
    func required<Value>(_ value: Value?, _ name: String, expected: String) throws(ContractFileError) -> Value {
        guard let value else {
            let what = members[name] == .null ? "is null" : "is missing"
            throw ContractFileError(.missingMember, at: path(of: name), "\(what); expected \(expected)")
        }
        return value
    }

    /// The strings of an array member, each checked.
    func strings(_ name: String, expected: String) throws(ContractFileError) -> [String]? {
        guard let elements = try array(name, expected: "an array of \(expected)") else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue else {
                throw ContractFileError(.mistypedMember, at: path(of: name) + "[\(index)]", "expected \(expected), found \(Self.found(element))")
            }
            strings.append(text)
        }
        return strings
    }

    private func mistyped(_ name: String, _ expected: String, _ value: JSONValue) -> ContractFileError {
        ContractFileError(.mistypedMember, at: path(of: name), "expected \(expected), found \(Self.found(value))")
    }

    /// What a value is, for a message: `a number 7`, `an array`.
    static func found(_ value: JSONValue) -> String {
        switch value {
        case .array, .object, .null: value.kindDescription
        default: "\(value.kindDescription) \(SchemaValidator.excerpt(value))"
        }
    }
}
