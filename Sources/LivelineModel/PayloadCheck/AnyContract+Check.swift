import Foundation

extension AnyContract {
    /// The problems a decoder finds (the others, such as an implausible date, still decode).
    static let decodingCodes: Set<PayloadProblem.Code> = [.invalidJSON, .missingKey, .nullValue, .typeMismatch, .invalidValue, .dateAsString]

    /// Checks a content state document (e.g. a context's state for `PUT /v1/contexts/{key}`) the
    /// way the phone reads it; returns every problem, empty when it decodes and its dates are
    /// plausible. Key paths start at the document (`nextOpen[0].label`).
    public func checkContentState(json: Data, now: Date) -> [PayloadProblem] {
        guard let value = try? JSONValue(json: json) else {
            return [PayloadProblem(.invalidJSON, at: "", "is not valid JSON")]
        }
        return contentStateProblems(value, document: json, path: [], now: now)
    }

    /// Checks a static attributes document the way the phone reads it; returns every problem.
    /// `document`: `json` already parsed by the caller, if at hand.
    public func checkAttributes(json: Data, document: JSONValue? = nil, now: Date) -> [PayloadProblem] {
        guard let value = try? document ?? JSONValue(json: json) else {
            return [PayloadProblem(.invalidJSON, at: "", "is not valid JSON")]
        }
        return attributesProblems(value, document: json, path: [], now: now)
    }

    /// `value` is the content state at `path` inside `document`.
    func contentStateProblems(_ value: JSONValue, document: Data, path: [String], now: Date) -> [PayloadProblem] {
        problems(value, part: .contentState, document: document, path: path, now: now)
    }

    /// `value` is the static attributes at `path` inside `document`.
    func attributesProblems(_ value: JSONValue, document: Data, path: [String], now: Date) -> [PayloadProblem] {
        problems(value, part: .attributes, document: document, path: path, now: now)
    }

    /// Why `json` does not decode as `part` of this contract, as the phone's decoder words it
    /// (nil: it decodes).
    public func decodingError(_ part: Part, json: Data) -> String? {
        if let decodeProbe {
            return decodeProbe(part, json, []).map(\.description)
        }
        guard let value = try? JSONValue(json: json) else { return "not valid JSON" }
        return Self.schemaDecodingError(value, fields: fields(part), owner: owner(part))
    }

    /// The first problem a decoder of `fields` finds in `value`, as "key path: message".
    static func schemaDecodingError(_ value: JSONValue, fields: [ContractField], owner: String) -> String? {
        var problems: [PayloadProblem] = []
        SchemaValidator(now: Date()).validate(value, fields: fields, owner: owner, at: "", into: &problems)
        return problems.first { decodingCodes.contains($0.code) }.map { "\($0.keyPath.isEmpty ? "(root)" : $0.keyPath): \($0.message)" }
    }

    private func fields(_ part: Part) -> [ContractField] {
        switch part {
        case .attributes: schema.attributes
        case .contentState: schema.contentState
        }
    }

    private func owner(_ part: Part) -> String {
        switch part {
        case .attributes: typeName
        case .contentState: typeName + ".ContentState"
        }
    }

    private func problems(_ value: JSONValue, part: Part, document: Data, path: [String], now: Date) -> [PayloadProblem] {
        var problems: [PayloadProblem] = []
        let prefix = path.joined(separator: ".")
        SchemaValidator(now: now).validate(value, fields: fields(part), owner: owner(part), at: prefix, into: &problems)
        // A compiled-in type's own decoder has the last word: a failure that the key-by-key check
        // did not already name is reported as it is.
        if let failure = decodeProbe?(part, document, path) {
            let named = problems.contains { problem in
                problem.severity == .error
                    && (problem.keyPath == failure.keyPath || failure.keyPath.hasPrefix(problem.keyPath + ".")
                        || failure.keyPath.hasPrefix(problem.keyPath + "["))
            }
            if !named {
                problems.append(
                    PayloadProblem(
                        .decodingFailed, at: failure.keyPath,
                        "the phone's default JSONDecoder fails here (\(failure.reason)), so it drops the whole push"))
            }
        }
        return problems
    }
}
