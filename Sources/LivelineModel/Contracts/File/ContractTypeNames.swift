/// The names a contract file gives a schema's nested objects and enums: each distinct type once,
/// in order of first appearance, named after its Swift name made a Swift identifier and unique in
/// the file (`docs/contracts.md`, "Contract files").
///
/// Two Swift types may print the same name (`A.Item` and `B.Item` are both `Item`), and a generic
/// one prints no identifier (`Box<Int>`): the file needs one name per shape. Valid, unique names,
/// as a parsed file has, are kept as they are.
struct ContractTypeNames {
    /// The names the file may not use for a type of its own.
    static let builtIn = ["String", "Int", "Double", "Bool", "Date"]

    /// Each named type under its file name, in order of first appearance.
    private(set) var definitions: [(name: String, type: ContractField.FieldType)] = []
    private var names: [ContractField.FieldType: String] = [:]
    private var taken = Set(Self.builtIn)

    init(_ schema: ContractSchema) {
        for field in schema.attributes + schema.contentState { visit(field.type) }
    }

    /// The file name of a nested object or enum of the schema.
    func name(of type: ContractField.FieldType) -> String? { names[type] }

    /// `type` as a file writes it: `String`, `[Item]`, `Status`.
    func text(of type: ContractField.FieldType) -> String {
        switch type {
        case .array(let element): "[\(text(of: element))]"
        case .enumeration(let name, _), .object(let name, _): names[type] ?? name
        default: type.description
        }
    }

    /// `schema` with every nested type under its file name.
    func renamed(_ schema: ContractSchema) -> ContractSchema {
        ContractSchema(attributes: schema.attributes.map(renamed), contentState: schema.contentState.map(renamed))
    }

    private func renamed(_ field: ContractField) -> ContractField {
        var copy = field
        copy.type = renamed(field.type)
        return copy
    }

    private func renamed(_ type: ContractField.FieldType) -> ContractField.FieldType {
        switch type {
        case .array(let element): .array(renamed(element))
        case .enumeration(let name, let cases): .enumeration(name: names[type] ?? name, cases: cases)
        case .object(let name, let fields): .object(name: names[type] ?? name, fields: fields.map(renamed))
        default: type
        }
    }

    private mutating func visit(_ type: ContractField.FieldType) {
        switch type {
        case .array(let element):
            visit(element)
        case .enumeration(let name, _):
            assign(name, to: type)
        case .object(let name, let fields):
            guard assign(name, to: type) else { return }
            for field in fields { visit(field.type) }
        default:
            break
        }
    }

    /// Names `type` unless it has a name already; whether it was new.
    @discardableResult
    private mutating func assign(_ swiftName: String, to type: ContractField.FieldType) -> Bool {
        guard names[type] == nil else { return false }
        let base = Self.identifier(from: swiftName)
        var candidate = base
        var number = 2
        while taken.contains(candidate) {
            candidate = base + String(number)
            number += 1
        }
        taken.insert(candidate)
        names[type] = candidate
        definitions.append((candidate, type))
        return true
    }

    /// Whether `name` is a Swift identifier as a file takes it: a letter or `_`, then letters,
    /// ASCII digits and `_` (The Swift Programming Language, "Lexical Structure", Identifiers;
    /// backticks and operators are not taken).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0 == "_" || ($0.isASCII && $0.isNumber) }
    }

    /// `name` with the characters an identifier cannot hold left out: `Box<Int>` → `BoxInt`.
    static func identifier(from name: String) -> String {
        if isIdentifier(name) { return name }
        let kept = String(name.filter { $0.isLetter || $0 == "_" || ($0.isASCII && $0.isNumber) })
        guard let first = kept.first else { return "Type" }
        return first.isLetter || first == "_" ? kept : "_" + kept
    }
}
