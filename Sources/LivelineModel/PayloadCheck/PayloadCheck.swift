import Foundation

/// The check every Live Activity payload passes before it is sent: it decodes the body again the
/// way the phone will, measures it against the APNs and ActivityKit limits, applies the `aps`
/// envelope rules, and flags what a phone would silently drop or show wrongly.
///
/// It works on typed payloads (the server encodes from the contract types, then checks the bytes)
/// and on raw JSON of unknown provenance (a file written by hand). It returns **every** problem
/// with a key path, a code and a message. Rules and sources: `docs/contracts.md` ("Contract rules the
/// server enforces before any push"), `docs/apns.md` §1.5, `docs/devices.md`.
public struct PayloadCheck: Sendable {
    /// ActivityKit's budget for static plus dynamic data: 4 KB combined. Related documentation:
    /// "Displaying live data with Live Activities"; `ActivityAuthorizationError.attributesTooLarge`.
    public static let activityDataLimit = 4096

    public var destination: PushDestination
    /// The time the check compares dates with (stale dates, plausibility): inject it in tests.
    public var now: Date
    /// Where `attributes-type` and type names are looked up.
    public var registry: ContractRegistry

    public init(destination: PushDestination = .device, now: Date, registry: ContractRegistry) {
        self.destination = destination
        self.now = now
        self.registry = registry
    }

    /// Encodes a typed payload and checks the bytes that would be sent.
    public func check<Attributes: LiveActivityContract>(_ payload: LiveActivityPayload<Attributes>) -> PayloadCheckReport {
        switch encodeAndCheck(payload) {
        case .success(let result): result.report
        case .failure(let rejection): rejection.report
        }
    }

    /// The body to send, or `PayloadRejected` with every error: call this before every send.
    public func encode<Attributes: LiveActivityContract>(_ payload: LiveActivityPayload<Attributes>) throws(PayloadRejected) -> Data {
        try encodeAndCheck(payload).get().body
    }

    /// Checks raw JSON; the contract comes from `contract`, else from `attributes-type`.
    /// `document`: `json` already parsed by the caller (who wrote `json` from it), read instead of
    /// parsing it again.
    public func check(json: Data, document: JSONValue? = nil, contract: AnyContract? = nil) -> PayloadCheckReport {
        var report = PayloadCheckReport(bodyBytes: json.count, bodyLimit: destination.bodyLimit)
        checkLiveActivity(json, document: document, contract: contract, into: &report)
        return report
    }

    /// Checks raw JSON against the contract of a Swift type.
    public func check<Contract: LiveActivityContract>(json: Data, document: JSONValue? = nil, contract: Contract.Type) -> PayloadCheckReport {
        check(json: json, document: document, contract: AnyContract(contract))
    }

    /// Checks raw JSON; the contract is the registry's `typeName`, else `attributes-type`.
    /// An unknown `typeName` is itself a problem. `document`: as in ``check(json:document:contract:)``.
    public func check(json: Data, document: JSONValue? = nil, typeName: String?) -> PayloadCheckReport {
        guard let typeName else { return check(json: json, document: document, contract: nil) }
        guard let contract = registry.contract(named: typeName) else {
            var report = PayloadCheckReport(bodyBytes: json.count, bodyLimit: destination.bodyLimit)
            var problem = registry.unknownTypeProblem(typeName, keyPath: "")
            problem.code = .unknownContract
            report.problems.append(problem)
            return report
        }
        return check(json: json, document: document, contract: contract)
    }

    private func encodeAndCheck<Attributes: LiveActivityContract>(
        _ payload: LiveActivityPayload<Attributes>
    ) -> Result<(body: Data, report: PayloadCheckReport), PayloadRejected> {
        let body: Data
        do {
            body = try payload.encoded()
        } catch {
            var report = PayloadCheckReport(
                contractName: Attributes.typeName, event: payload.event.rawValue, bodyBytes: 0, bodyLimit: destination.bodyLimit)
            report.problems.append(PayloadProblem(.encodingFailed, at: "", "could not be encoded: \(error)"))
            return .failure(PayloadRejected(report: report))
        }
        let report = check(json: body, contract: Attributes.self)
        return report.isAccepted ? .success((body, report)) : .failure(PayloadRejected(report: report))
    }
}
