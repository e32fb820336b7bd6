import Foundation

/// One contract as the server, the command line and the simulated iPhones use it, whether a Swift
/// type compiled in (``init(_:)``) or a contract file loaded at run time brings it.
///
/// Everything that reads a contract by its name works on this value, so a contract loaded from a
/// file is treated exactly as a built-in one (`docs/contracts.md`, "Bring your own Live Activity").
public struct AnyContract: Sendable {
    /// Where a contract comes from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// A Swift type compiled into this program (a feature's contract).
        case swiftType
        /// A contract file, e.g. one of `LIVELINE_CONTRACTS_DIR`.
        case file(String)
        /// `PUT /v1/contracts/{type}`, stored in the database.
        case api

        public var description: String {
            switch self {
            case .swiftType: "compiled in"
            case .file(let path): "file \(path)"
            case .api: "the API"
            }
        }
    }

    /// Which part of an activity's JSON a rule reads.
    public enum Part: Sendable {
        case attributes
        case contentState
    }

    /// The `attributes-type` the phone compares exactly.
    public let typeName: String
    public let version: Int
    public let schema: ContractSchema
    public let origin: Origin
    /// The contract file it was read from (nil: compiled in).
    public internal(set) var file: ContractFile?
    /// The file's fingerprint, computed once (every put of a loaded type compares it).
    var fileFingerprint: String?
    let examples: @Sendable () -> (attributes: JSONValue, contentState: JSONValue)
    /// The app type's own decoder, when it is compiled in: the first failure decoding the value at
    /// a key path of a document (``DecodeProbe``); nil for a file, whose schema is its decoder.
    let decodeProbe: (@Sendable (Part, Data, [String]) -> DecodingProblem?)?
    let material: @Sendable (_ old: JSONValue, _ new: JSONValue) -> String?
    let render: @Sendable (_ attributes: Data, _ contentState: Data, _ badge: String) -> RenderedCard?
    let contextKeyRule: @Sendable (_ attributes: Data, _ userID: Int, _ householdID: Int) -> String?

    /// The contract of a Swift type: its schema, examples and rules, and its own decoder.
    public init<Contract: LiveActivityContract>(_ type: Contract.Type) {
        typeName = Contract.typeName
        version = Contract.version
        schema = Contract.schema
        origin = .swiftType
        file = nil
        examples = {
            let encoder = JSONEncoder()
            func json(_ value: some Encodable) -> JSONValue { (try? encoder.encode(value)).flatMap { try? JSONValue(json: $0) } ?? .object([:]) }
            return (json(Contract.example), json(Contract.exampleContentState))
        }
        decodeProbe = { part, document, path in
            switch part {
            case .attributes: DecodeProbe<Contract>.problem(decoding: document, at: path)
            case .contentState: DecodeProbe<Contract.ContentState>.problem(decoding: document, at: path)
            }
        }
        material = { old, new in
            let decoder = JSONDecoder()
            guard let old = try? decoder.decode(Contract.ContentState.self, from: old.compactJSON),
                let new = try? decoder.decode(Contract.ContentState.self, from: new.compactJSON)
            else { return "the first push" }
            return Contract.materialChange(from: old, to: new)
        }
        render = { attributes, contentState, badge in Contract.card(attributes: attributes, contentState: contentState, badge: badge) }
        contextKeyRule = { attributes, userID, householdID in Contract.contextKey(attributes: attributes, userID: userID, householdID: householdID) }
    }

    /// A contract read from outside (a file, the API): its schema is the app's decoder, and its
    /// rules are the given ones.
    public init(
        typeName: String, version: Int, schema: ContractSchema, exampleAttributes: JSONValue, exampleContentState: JSONValue, origin: Origin,
        materialChange: @escaping @Sendable (_ old: JSONValue, _ new: JSONValue) -> String?,
        card: @escaping @Sendable (_ attributes: JSONValue, _ contentState: JSONValue, _ badge: String) -> RenderedCard
    ) {
        self.typeName = typeName
        self.version = version
        self.schema = schema
        self.origin = origin
        file = nil
        examples = { (exampleAttributes, exampleContentState) }
        decodeProbe = nil
        material = materialChange
        render = { [schema] attributes, contentState, badge in
            // The phone shows nothing for JSON its decoder refuses.
            guard let attributes = try? JSONValue(json: attributes), let contentState = try? JSONValue(json: contentState),
                Self.schemaDecodingError(attributes, fields: schema.attributes, owner: typeName) == nil,
                Self.schemaDecodingError(contentState, fields: schema.contentState, owner: typeName + ".ContentState") == nil
            else { return nil }
            return card(attributes, contentState, badge)
        }
        contextKeyRule = { _, _, _ in nil }
    }

    /// Example static attributes (`liveline contracts show`, OpenAPI).
    public var exampleAttributes: JSONValue { examples().attributes }
    /// Example content state.
    public var exampleContentState: JSONValue { examples().contentState }

    /// Why the change from `old` to `new` (JSON as the engine holds it) is material, or nil. The
    /// contract's `rev` key is left out; no previous state, or one that does not parse, makes any
    /// change material.
    public func materialChange(fromJSON old: Data?, toJSON new: Data) -> String? {
        guard let old, var oldObject = try? JSONValue(json: old).objectValue, let newObject = try? JSONValue(json: new).objectValue else {
            return "the first push"
        }
        oldObject["rev"] = newObject["rev"]
        return material(.object(oldObject), .object(newObject))
    }

    /// The card of these JSON documents, or nil when either does not decode (the phone would
    /// show nothing).
    public func card(attributes: Data, contentState: Data, badge: String) -> RenderedCard? {
        render(attributes, contentState, badge)
    }

    /// The context key of an activity with these attributes (JSON), or nil when they do not
    /// decode or the contract has no rule.
    public func contextKey(attributes: Data, userID: Int, householdID: Int) -> String? {
        contextKeyRule(attributes, userID, householdID)
    }
}
