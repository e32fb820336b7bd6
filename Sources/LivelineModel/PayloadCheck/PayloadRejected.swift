/// A payload the check refused: thrown by `PayloadCheck.encode(_:)` instead of sending it.
///
/// The description lists every error with its key path; it holds payload content only, never a
/// token or a key.
public struct PayloadRejected: Error, Sendable, Hashable, CustomStringConvertible {
    public var report: PayloadCheckReport

    public init(report: PayloadCheckReport) { self.report = report }

    public var description: String {
        let kind = report.contractName.map { "\($0) payload" } ?? "payload"
        return "\(kind) refused (\(report.errors.count) error\(report.errors.count == 1 ? "" : "s")):\n"
            + report.errors.map { "  " + $0.description }.joined(separator: "\n")
    }
}
