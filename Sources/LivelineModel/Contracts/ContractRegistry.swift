import Foundation

/// The known contract types by name: how the server and `liveline contracts` find the Swift type
/// for an `attributes-type` string or a context's type name, to decode and check its JSON. The
/// generic model knows no contract: the caller gives the registry (the server builds it from its
/// features' `contracts`, an app from its own types; `docs/contracts.md`).
public struct ContractRegistry: Sendable {
    /// The contracts, in listing order.
    public let contracts: [any LiveActivityContract.Type]

    public init(_ contracts: [any LiveActivityContract.Type]) {
        self.contracts = contracts
    }

    /// The type names, in listing order.
    public var names: [String] { contracts.map { $0.typeName } }

    /// The contract whose `typeName` is exactly `name` (the phone compares exactly, too).
    public func contract(named name: String) -> (any LiveActivityContract.Type)? {
        contracts.first { $0.typeName == name }
    }

    /// The known names close to `name` (other case, a typo, a missing suffix), for "did you mean".
    public func suggestions(for name: String) -> [String] {
        NameSuggestion.closest(to: name, among: names)
    }

    /// Checks a content state document (e.g. the body of `PUT /v1/contexts/{key}`) against the
    /// contract named `typeName`; returns every problem, empty when the phone would decode it.
    public func checkContentState(json: Data, typeName: String, now: Date) -> [PayloadProblem] {
        guard let contract = contract(named: typeName) else {
            return [unknownTypeProblem(typeName, keyPath: "")]
        }
        return contract.checkContentState(json: json, now: now)
    }

    /// Checks a static attributes document against the contract named `typeName`; `document` is
    /// `json` already parsed by the caller, if at hand.
    public func checkAttributes(json: Data, document: JSONValue? = nil, typeName: String, now: Date) -> [PayloadProblem] {
        guard let contract = contract(named: typeName) else {
            return [unknownTypeProblem(typeName, keyPath: "")]
        }
        return contract.checkAttributes(json: json, document: document, now: now)
    }

    func unknownTypeProblem(_ name: String, keyPath: String) -> PayloadProblem {
        var message = "'\(name)' is not a known contract type; known: \(names.joined(separator: ", "))"
        if let suggestion = suggestions(for: name).first {
            message += ". Did you mean '\(suggestion)'?"
        }
        return PayloadProblem(.unknownAttributesType, at: keyPath, message)
    }
}
