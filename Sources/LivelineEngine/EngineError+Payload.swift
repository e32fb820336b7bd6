import LivelineModel

extension EngineError {
    /// Refuses, naming the first problem's field (in `section` of the request, or the whole
    /// request when empty), what the phone could not use; warnings pass.
    static func refuse(_ problems: [PayloadProblem], in section: String) throws {
        let errors = problems.filter { $0.severity == .error }
        guard let first = errors.first else { return }
        let field =
            section.isEmpty
            ? (first.keyPath.isEmpty ? "body" : first.keyPath)
            : first.keyPath.isEmpty ? section : "\(section).\(first.keyPath)"
        var message = "\(field): \(first.message)"
        if errors.count > 1 {
            message += " (and \(errors.count - 1) more: \(errors.dropFirst().prefix(3).map { $0.keyPath }.joined(separator: ", ")))"
        }
        throw EngineError(.payloadRefused, message, field: field)
    }

    /// A problem of a rendered push, its key path named as the request's field: the content
    /// state, alert and relevance score of `aps` are `contentState`, `alert`, `relevanceScore`.
    static func requestField(_ problem: PayloadProblem) -> PayloadProblem {
        var problem = problem
        for (prefix, field) in [
            ("aps.content-state", "contentState"), ("aps.alert", "alert"), ("aps.relevance-score", "relevanceScore"),
            ("aps.attributes", "attributes"),
        ]
        where problem.keyPath.hasPrefix(prefix) {
            problem.keyPath = field + problem.keyPath.dropFirst(prefix.count)
        }
        return problem
    }

    /// The refusal of a push the engine rendered itself (a start, an alert): the phone would drop
    /// it, for the reasons of the first problems, each named as the request's field.
    static func payloadRefused(_ what: String, _ report: PayloadCheckReport) -> EngineError {
        let problems = report.errors.prefix(3).map(requestField)
        let reasons = problems.map { "\($0.keyPath): \($0.message)" }.joined(separator: "; ")
        return EngineError(
            .payloadRefused, "\(what) would be dropped by the phone: \(reasons)",
            field: problems.first.map { String($0.keyPath.prefix { $0 != "." }) })
    }
}
