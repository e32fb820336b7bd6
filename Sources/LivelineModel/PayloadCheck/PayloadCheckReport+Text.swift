import Foundation

extension PayloadCheckReport {
    /// The text of `liveline contracts check` (and of the dashboard's payload check) for the
    /// payload read from `file`: the verdict, the sizes, and every problem.
    public func text(file: String, destination: PushDestination) -> String {
        let report = self
        let errors = report.errors.count
        let warnings = report.warnings.count
        var verdict = report.isAccepted ? "accepted" : "rejected"
        var counts: [String] = []
        if errors > 0 { counts.append("\(errors) error\(errors == 1 ? "" : "s")") }
        if warnings > 0 { counts.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
        if !counts.isEmpty { verdict += " (" + counts.joined(separator: ", ") + ")" }
        var lines = ["\(file): \(verdict)"]
        var facts: [String] = []
        if let contract = report.contractName { facts.append(contract) }
        if let event = report.event { facts.append("event \(event)") }
        facts.append("\(destination.rawValue) push")
        lines.append("  " + facts.joined(separator: ", "))
        var sizes = "  body \(report.bodyBytes) of \(report.bodyLimit) bytes"
        if let activity = report.activityDataBytes {
            sizes += "; attributes + content-state \(activity) of \(PayloadCheck.activityDataLimit) bytes"
        }
        lines.append(sizes)
        for problem in report.errors + report.warnings {
            let place = problem.keyPath.isEmpty ? "(body)" : problem.keyPath
            lines.append("  \(problem.severity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(place) [\(problem.code.rawValue)]")
            lines.append("          \(problem.message)")
        }
        return lines.joined(separator: "\n")
    }
}
