import Foundation

extension LiveActivityContract {
    /// Checks a content state document (e.g. a context's state for `PUT /v1/contexts/{key}`) the
    /// way the phone reads it; returns every problem, empty when it decodes and its dates are
    /// plausible. Key paths start at the document (`nextOpen[0].label`).
    public static func checkContentState(json: Data, now: Date) -> [PayloadProblem] {
        guard let value = try? JSONValue(json: json) else {
            return [PayloadProblem(.invalidJSON, at: "", "is not valid JSON")]
        }
        return contentStateProblems(value, document: json, path: [], now: now)
    }

    /// Checks a static attributes document the way the phone reads it; returns every problem.
    /// `document`: `json` already parsed by the caller, if at hand.
    public static func checkAttributes(json: Data, document: JSONValue? = nil, now: Date) -> [PayloadProblem] {
        guard let value = try? document ?? JSONValue(json: json) else {
            return [PayloadProblem(.invalidJSON, at: "", "is not valid JSON")]
        }
        return attributesProblems(value, document: json, path: [], now: now)
    }

    /// `value` is the content state at `path` inside `document`.
    static func contentStateProblems(_ value: JSONValue, document: Data, path: [String], now: Date) -> [PayloadProblem] {
        problems(
            value, fields: schema.contentState, owner: typeName + ".ContentState", decoding: ContentState.self, document: document, path: path,
            now: now)
    }

    /// `value` is the static attributes at `path` inside `document`.
    static func attributesProblems(_ value: JSONValue, document: Data, path: [String], now: Date) -> [PayloadProblem] {
        problems(value, fields: schema.attributes, owner: typeName, decoding: Self.self, document: document, path: path, now: now)
    }

    private static func problems<Value: Decodable>(
        _ value: JSONValue, fields: [ContractField], owner: String, decoding: Value.Type,
        document: Data, path: [String], now: Date
    ) -> [PayloadProblem] {
        var problems: [PayloadProblem] = []
        let prefix = path.joined(separator: ".")
        SchemaValidator(now: now).validate(value, fields: fields, owner: owner, at: prefix, into: &problems)
        // The phone's own decoder has the last word: a failure that the key-by-key check did not
        // already name is reported as it is.
        if let failure = DecodeProbe<Value>.problem(decoding: document, at: path) {
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
