/// What the payload check found: every problem, and the sizes it measured.
public struct PayloadCheckReport: Sendable, Hashable {
    /// The contract the payload was checked against, when one was known.
    public var contractName: String?
    /// The `event` of the payload, when it had a readable one.
    public var event: String?
    /// Bytes of the body as given.
    public var bodyBytes: Int
    /// The APNs limit for the destination.
    public var bodyLimit: Int
    /// Bytes of `attributes` plus `content-state` as compact JSON (ActivityKit's 4 KB budget).
    public var activityDataBytes: Int?
    /// Every problem, errors and warnings, in the order found.
    public var problems: [PayloadProblem]

    public init(
        contractName: String? = nil, event: String? = nil, bodyBytes: Int, bodyLimit: Int, activityDataBytes: Int? = nil,
        problems: [PayloadProblem] = []
    ) {
        self.contractName = contractName
        self.event = event
        self.bodyBytes = bodyBytes
        self.bodyLimit = bodyLimit
        self.activityDataBytes = activityDataBytes
        self.problems = problems
    }

    /// The problems that refuse the payload.
    public var errors: [PayloadProblem] { problems.filter { $0.severity == .error } }
    /// The problems that only deserve a look.
    public var warnings: [PayloadProblem] { problems.filter { $0.severity == .warning } }
    /// Whether the payload may be sent: no errors.
    public var isAccepted: Bool { errors.isEmpty }

    /// The problems with `code`.
    public func problems(_ code: PayloadProblem.Code) -> [PayloadProblem] {
        problems.filter { $0.code == code }
    }
}
