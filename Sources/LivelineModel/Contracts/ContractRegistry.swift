import Foundation

/// The known contracts by name: how the server and `liveline contracts` find the contract for an
/// `attributes-type` string or a context's type name, to decode and check its JSON. The generic
/// model knows no contract: the caller gives the registry (the server builds it from its features'
/// `contracts` and the contracts it loads at run time, an app from its own types;
/// `docs/contracts.md`).
public struct ContractRegistry: Sendable {
    /// The compiled-in contracts, in listing order.
    public let builtIn: [AnyContract]
    /// The contracts loaded at run time (files, the API), shared by every copy of this registry.
    public let loaded: ContractCatalog

    public init(_ types: [any LiveActivityContract.Type], loaded: ContractCatalog = ContractCatalog()) {
        self.init(contracts: types.map { AnyContract($0) }, loaded: loaded)
    }

    public init(contracts: [AnyContract], loaded: ContractCatalog = ContractCatalog()) {
        builtIn = contracts
        self.loaded = loaded
    }

    /// Every contract: the compiled-in ones, then the loaded ones by name.
    public var contracts: [AnyContract] { builtIn + loaded.contracts }

    /// The type names, in listing order.
    public var names: [String] { contracts.map(\.typeName) }

    /// The contract whose `typeName` is exactly `name` (the phone compares exactly, too).
    public func contract(named name: String) -> AnyContract? {
        builtIn.first { $0.typeName == name } ?? loaded.contract(named: name)
    }

    /// Whether `name` is a compiled-in contract (a loaded one may not take its name).
    public func isBuiltIn(_ name: String) -> Bool {
        builtIn.contains { $0.typeName == name }
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
