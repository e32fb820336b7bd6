import Foundation

/// Walks a JSON value along a contract's schema and reports *every* key that a default
/// `JSONDecoder` would refuse (which stops at the first), plus dates it would accept wrongly.
struct SchemaValidator {
    let now: Date

    /// Checks `value` as an object with `fields`; `owner` names the Swift type in messages.
    func validate(_ value: JSONValue, fields: [ContractField], owner: String, at path: String, into problems: inout [PayloadProblem]) {
        guard case .object(let members) = value else {
            problems.append(PayloadProblem(.typeMismatch, at: path, "must be an object (\(owner)), found \(value.kindDescription)"))
            return
        }
        let knownKeys = Set(fields.map(\.key))
        let strangers = members.keys.filter { !knownKeys.contains($0) }.sorted()
        for field in fields {
            let fieldPath = Self.join(path, field.key)
            guard let member = members[field.key] else {
                if !field.isOptional {
                    var message =
                        "is missing: \(owner) requires \(field.key), \(field.type.jsonDescription) (\(field.typeDescription)), "
                        + "so the phone drops the whole push without a word"
                    if let renamed = strangers.first(where: { NameSuggestion.closest(to: $0, among: [field.key]).first != nil }) {
                        message += "; the payload has '\(renamed)' instead: a renamed key?"
                    }
                    problems.append(PayloadProblem(.missingKey, at: fieldPath, message))
                }
                continue
            }
            if member == .null {
                if !field.isOptional {
                    problems.append(
                        PayloadProblem(
                            .nullValue, at: fieldPath,
                            "is null, but \(owner).\(field.key) is a non-optional \(field.type); the phone drops the whole push"))
                }
                continue
            }
            check(member, type: field.type, at: fieldPath, into: &problems)
        }
        for stranger in strangers {
            var message = "is not a key of \(owner); the phone ignores it"
            if let suggestion = NameSuggestion.closest(to: stranger, among: fields.map(\.key)).first {
                message += ". Did you mean '\(suggestion)'?"
            }
            problems.append(PayloadProblem(.unknownKey, at: Self.join(path, stranger), message, severity: .warning))
        }
    }

    func check(_ value: JSONValue, type: ContractField.FieldType, at path: String, into problems: inout [PayloadProblem]) {
        func mismatch(_ expected: String) {
            problems.append(PayloadProblem(.typeMismatch, at: path, "expected \(expected), found \(value.kindDescription) \(Self.excerpt(value))"))
        }
        switch type {
        case .string:
            if value.stringValue == nil { mismatch("a string (String)") }
        case .int:
            switch value {
            case .int: break
            case .double(let number) where number == number.rounded() && abs(number) < 9e15: break
            default: mismatch("a whole number (Int)")
            }
        case .double:
            if value.numberValue == nil { mismatch("a number (Double)") }
        case .bool:
            if case .bool = value {} else { mismatch("true or false (Bool)") }
        case .date:
            if let seconds = value.numberValue {
                if let problem = DateRules.contentDateProblem(seconds, at: path, now: now) { problems.append(problem) }
            } else if let text = value.stringValue {
                problems.append(DateRules.contentDateAsString(text, at: path))
            } else {
                mismatch("a number of seconds since 2001-01-01 (Date)")
            }
        case .enumeration(let name, let cases):
            guard let text = value.stringValue else {
                mismatch("a string (\(name))")
                return
            }
            if !cases.contains(text) {
                var message = "\"\(text)\" is not a \(name); expected one of \(cases.joined(separator: ", ")); the phone drops the whole push"
                if let suggestion = NameSuggestion.closest(to: text, among: cases).first {
                    message += ". Did you mean '\(suggestion)'?"
                }
                problems.append(PayloadProblem(.invalidValue, at: path, message))
            }
        case .array(let element):
            guard case .array(let items) = value else {
                mismatch("an array (\(type))")
                return
            }
            for (index, item) in items.enumerated() {
                check(item, type: element, at: path + "[\(index)]", into: &problems)
            }
        case .object(let name, let fields):
            validate(value, fields: fields, owner: name, at: path, into: &problems)
        }
    }

    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// The value for a message, cut at 40 characters.
    static func excerpt(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
